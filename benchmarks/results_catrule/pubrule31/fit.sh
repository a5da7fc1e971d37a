#!/bin/bash
# Fit of the 1-way bar tau_1 (session 31, issue 14): synthetic shapes only, a documented mix of three Dirichlet
# latent-class shapes (session 29's fit shapes) and three binned-numeric GEO shapes (session 30's fit shapes of the
# private step), paired with main's rule (5,5,8) (first variant), epsilon 0.03-10, seeds 0-3. Run from the root.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/fit_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    --eps 0.03 0.1 0.3 1 3 10 --variants 5,5,8 4,5,8 3,5,8 2.5,5,8 2,5,8 1.5,5,8 0,5,8 --seeds 0 1 2 3 \
    > $R/raw_fit.txt 2> $R/stderr_fit.txt
uptime >> $R/fit_uptime.txt

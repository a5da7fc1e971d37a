#!/bin/bash
# Fit round 2 (session 31, 19:02 UTC, after summary_fit.txt): a size-dependent 1-way bar min(tau_1, b sqrt(n_i))
# (marginals_pipeline.ONE_WAY_CELL_SNR = b; variant suffix /b), same shapes, epsilons and seeds as fit.sh.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/fit2_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    --eps 0.03 0.1 0.3 1 3 10 --variants 5,5,8 4,5,8 5,5,8/0.5 5,5,8/0.7 5,5,8/0.9 4,5,8/0.7 2,5,8 --seeds 0 1 2 3 \
    > $R/raw_fit2.txt 2> $R/stderr_fit2.txt
uptime >> $R/fit2_uptime.txt

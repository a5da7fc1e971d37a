#!/bin/bash
# Held-out shapes (session 31; the list fixed at 18:53 UTC before any result, in pubrule_study.py's NEW and below):
# Dirichlet tit6-m1k tit6-skew-m1k cat6-wide-m2k cat10-m300 adl7-m10k tit9-a03-m1k (new), binned-numeric
# tit6-geo-m1k adl7-geo-m10k cat6-geo-m2k cat10-geo-m300 tit9-geo3-m2k (new) adl7-geo-m3k (new); the fit's
# candidate variants (summary_fit2.txt) and the titanic-0.3 reference 2,5,8; baseline main's rule 5,5,8.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/holdout_uptime.txt
python benchmarks/pubrule_study.py --shapes tit6-m1k tit6-skew-m1k cat6-wide-m2k cat10-m300 tit9-a03-m1k \
    tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k \
    --eps 0.03 0.1 0.3 1 3 10 --variants 5,5,8 4,5,8 5,5,8/0.7 5,5,8/0.9 4,5,8/0.7 2,5,8 --seeds 0 1 2 3 \
    > $R/raw_holdout.txt 2> $R/stderr_holdout.txt
uptime >> $R/holdout_uptime.txt

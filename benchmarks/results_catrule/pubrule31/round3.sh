#!/bin/bash
# Round 3 (session 31, 19:05 UTC): the size-dependent bar with a floor, min(tau_1, max(F, b sqrt(n_i))) (variant
# suffix /b^F), motivated by the held-out round's losses at m = 300 (so held-out set A is now fit data): fit on
# the fit shapes + held-out set A, then a fresh held-out set B (pubrule_study.NEW, defined before any round-3 row).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
V="5,5,8 5,5,8/0.9 5,5,8/0.9^2 5,5,8/0.7^2 5,5,8/0.9^2.5"
uptime > $R/round3_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    tit6-m1k tit6-skew-m1k cat6-wide-m2k cat10-m300 tit9-a03-m1k tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 \
    tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k \
    --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 > $R/raw_round3_fit.txt 2> $R/stderr_round3.txt
uptime >> $R/round3_uptime.txt
python benchmarks/pubrule_study.py --shapes cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 tit9-a1-m2k cat9-a03-m1k \
    --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 > $R/raw_round3_holdout.txt 2>> $R/stderr_round3.txt
uptime >> $R/round3_uptime.txt

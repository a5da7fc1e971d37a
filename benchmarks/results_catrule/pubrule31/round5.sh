#!/bin/bash
# Round 5 (session 31, 19:13 UTC): round 4's worst cells (cat8-m400 at 0.3, tit9-a1-m2k) come from 2-3-value
# attributes measured at a low SNR, which the shrinkage cannot touch (q = n_i - 1 < 3): the lower bar only for
# attributes with >= S values (marginals_pipeline.ONE_WAY_LOW_MIN_SIZE = S, suffix #S). Fit on every shape seen so
# far (fit + A + B); held-out set C stays fresh (holdout4.sh).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
V="5,5,8 2.5,5,8~1 2.5,5,8~1#4 2,5,8~1#4 1.5,5,8~1#4 2,5,8~1#6"
uptime > $R/round5_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    tit6-m1k tit6-skew-m1k cat6-wide-m2k cat10-m300 tit9-a03-m1k tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 \
    tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 \
    tit9-a1-m2k cat9-a03-m1k \
    --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 > $R/raw_round5_fit.txt 2> $R/stderr_round5.txt
uptime >> $R/round5_uptime.txt

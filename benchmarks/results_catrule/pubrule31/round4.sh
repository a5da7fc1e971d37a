#!/bin/bash
# Round 4 (session 31, 19:15 UTC): a lower 1-way bar WITH the positive-part James-Stein shrinkage of the measured
# 1-way residuals whose public set SNR is below 5 (post-processing; marginals_pipeline.ONE_WAY_SHRINK = C, variant
# suffix ~C), motivated by the split of round 1's loss (pubrule31/notes.md: the losing shapes lose on the wide
# attribute's own table, which the shrinkage pulls back to the uniform one). Fit on the fit shapes + held-out sets
# A and B (all seen before), then a fresh held-out set C (pubrule_study.NEW, defined before any round-4 row).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
V="5,5,8 3,5,8~1 2.5,5,8~1 2,5,8~1 1.5,5,8~1 2.5,5,8~0.5"
uptime > $R/round4_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    tit6-m1k tit6-skew-m1k cat6-wide-m2k cat10-m300 tit9-a03-m1k tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 \
    tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 \
    tit9-a1-m2k cat9-a03-m1k \
    --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 > $R/raw_round4_fit.txt 2> $R/stderr_round4.txt
uptime >> $R/round4_uptime.txt

#!/bin/bash
# Round 3 of the fit (stopped by hand at w11-geo-m10k 3 when the S variant was found: raw_bandS_probe.txt) (session 37, wide37): the shapes round 2 (fit_r2.sh, raw_fit_r2.txt) did not reach, small m
# first, with the exponents left in play (2 and 3 lost up to 6-8% on w10-dir-m5k at 0.1 in round 2).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime; date -u
python benchmarks/wide37_study.py --shapes w9-bell-m800 w9-bell-m1k tit9-m1k tit9-skew-m1k tit9-geo-m1k cat9-geo-m1k \
    cat8-a2-m800 w11-geo-m10k adl7-geo-m10k w8-dir-m50k --eps 0.1 0.3 1 3 10 --variants 0 1 1.5 --seeds 0 1 2
uptime; date -u

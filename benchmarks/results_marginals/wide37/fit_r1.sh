#!/bin/bash
# Fit of the L1 correction's exponent on synthetic wide categorical shapes (session 37, wide37).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime; date -u
python benchmarks/wide37_study.py --shapes w10-geo-m500 w10-bell-m2k w10-dir-m5k w12-bell-m20k w8-dir-m50k \
    w9-bell-m1k w11-geo-m10k w9-bell-m800 tit9-m1k tit9-skew-m1k tit9-geo-m1k cat9-geo-m1k adl7-geo-m10k cat8-a2-m800 \
    --eps 0.1 0.3 1 3 10 --variants 0 0.5 1 1.5 1L 1.5L (stopped by hand after the w10-dir-m5k shape: raw_fit_r1.txt) --seeds 0 1 2
uptime; date -u

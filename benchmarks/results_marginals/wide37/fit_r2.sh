#!/bin/bash
# Round 2 (stopped by hand during w12-bell-m20k at 10, releases of 27-50 s: raw_fit_r2.txt; round 1, fit_r1.sh: 0.5 and the in-loop variants 1L 1.5L lost, stopped after 14 cells). Fit of the L1 correction's exponent on synthetic wide categorical shapes (session 37, wide37).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime; date -u
python benchmarks/wide37_study.py --shapes w10-geo-m500 w10-bell-m2k w10-dir-m5k w12-bell-m20k w8-dir-m50k \
    w9-bell-m1k w11-geo-m10k w9-bell-m800 tit9-m1k tit9-skew-m1k tit9-geo-m1k cat9-geo-m1k adl7-geo-m10k cat8-a2-m800 \
    --eps 0.1 0.3 1 3 10 --variants 0 1 1.5 2 3 --seeds 0 1 2
uptime; date -u

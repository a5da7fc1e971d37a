#!/bin/bash
# Round 4 = THE FIT (session 37, wide37): the "S" variants (the shrinkage bands read the uncorrected set SNRs; rounds
# 2-3 lost up to 6-8% where the correction lifted a wide 1-way set over the 1-way shrinkage band, probe:
# raw_bandS_probe.txt), every shape, slow shapes last.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime; date -u
python benchmarks/wide37_study.py --shapes w9-bell-m800 w9-bell-m1k w10-geo-m500 tit9-m1k tit9-skew-m1k tit9-geo-m1k \
    cat9-geo-m1k cat8-a2-m800 w10-bell-m2k w10-dir-m5k w11-geo-m10k adl7-geo-m10k w8-dir-m50k w12-bell-m20k \
    --eps 0.1 0.3 1 3 10 --variants 0 1S 1.5S 2S --seeds 0 1 2
uptime; date -u

#!/bin/bash
# Fit (session 32): bands (B_2, B_3) of the James-Stein shrinkage of measured residual sets of order 2 / 3, on the
# pubrule31 shapes (round 4's fit + sets A, B) and stein31's sets D and E (all seen before), epsilon 0.1-3, seeds 0-4,
# paired with main (variant 0,0 = main 640b3a4's release bit for bit). -> raw_fit.txt, summary_fit.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein32
P="tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k tit6-m1k tit6-skew-m1k cat6-wide-m2k
   cat10-m300 tit9-a03-m1k tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k
   cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 tit9-a1-m2k cat9-a03-m1k"
D="D:d-small-m500 D:d-mix-m900 D:d-flat-m700 D:d-a03-m2500 D:d-wide-m1200 D:g-m600 D:g-m1800 D:g-m350 D:g-m5k D:g-a1-m1k"
E="E:e-bin-m450 E:e-mix-m800 E:e-flat-m1k E:e-a04-m3k E:e-geo-m400 E:e-geo-m1300 E:e-geo-m2500 E:e-geo-m700"
V=${V:-"0,0 10,0 20,0 inf,0 0,15 0,inf inf,inf"}
uptime > $R/fit_uptime.txt
python $R/stein_higher.py --shapes $P $D $E --eps 0.1 0.3 1 3 --variants $V --seeds 0 1 2 3 4 \
    > $R/raw_fit.txt 2> $R/stderr_fit.txt
uptime >> $R/fit_uptime.txt
grep -v "^#" $R/raw_fit.txt > /tmp/stein32_fit_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/stein32_fit_rows.txt > $R/summary_fit.txt

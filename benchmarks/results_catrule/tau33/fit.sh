#!/bin/bash
# Fit (seen shapes: pubrule31 / stein31 D / stein32 F and G, synthetic only): lower (tau_2, tau_3) with the adopted
# c = 0.25 shrinkage, against main (5,8 = main 8b6346f's release), epsilon 0.1-10, seeds 0-4.
# -> raw_fit.txt, summary_fit.txt, ci_fit.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/tau33
S="tit9-m1k F:f-skew-m2k tit9-geo-m1k G:g-skew-m1k tit9-skew-m1k F:f-geo-skew-m1500 tit9-geo2-m1k G:g-geo-skew-m2k
   tit6-skew-m1k F:f-dir-m1500 G:g-dir-m800 tit9-a03-m1k F:f-geo-m1100 G:g-geo-m1600 tit9-geo4-m800 F:f-flat-m900
   G:g-skew-m3k cat9-wide-m1k F:f-geo-m650 G:g-flat-m1800 adl7-geo-m3k F:f-dir-m3500 G:g-dir-m2500 cat8-m400
   F:f-geo-m2200 D:d-flat-m700 tit9-a1-m2k F:f-geo-m4500 D:g-m600 cat6-geo-m2k F:f-dir-m6k D:d-mix-m900
   cat10-geo-m300 G:g-geo-m5k D:g-m1800 adl7-m10k"
uptime > $R/fit_uptime.txt
python $R/tau_study.py --shapes $S --eps 0.1 0.3 1 3 10 --variants 5,8 4,8 3,8 2,8 5,5 5,3 4,5 3,5 \
    --seeds 0 1 2 3 4 > $R/raw_fit.txt 2> $R/stderr_fit.txt
uptime >> $R/fit_uptime.txt
grep -v "^#" $R/raw_fit.txt > /tmp/tau33_fit_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/tau33_fit_rows.txt > $R/summary_fit.txt
python $R/../stein32/cell_ci.py $R/raw_fit.txt 5,8 4,8 3,8 2,8 5,5 5,3 4,5 3,5 > $R/ci_fit.txt

#!/bin/bash
# Round 3 (decision rule in notes.md, committed before any row): a higher tau_3, 5,10 and 5,12 (c = 0.25), against
# main on all 36 seen shapes, epsilon 0.1-10, seeds 0-4. -> raw_raise.txt, summary_raise.txt, ci_raise.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/tau33
S="tit9-m1k F:f-skew-m2k tit9-geo-m1k G:g-skew-m1k tit9-skew-m1k F:f-geo-skew-m1500 tit9-geo2-m1k G:g-geo-skew-m2k
   tit6-skew-m1k F:f-dir-m1500 G:g-dir-m800 tit9-a03-m1k F:f-geo-m1100 G:g-geo-m1600 tit9-geo4-m800 F:f-flat-m900
   G:g-skew-m3k cat9-wide-m1k F:f-geo-m650 G:g-flat-m1800 adl7-geo-m3k F:f-dir-m3500 G:g-dir-m2500 cat8-m400
   F:f-geo-m2200 D:d-flat-m700 tit9-a1-m2k F:f-geo-m4500 D:g-m600 cat6-geo-m2k F:f-dir-m6k D:d-mix-m900
   cat10-geo-m300 G:g-geo-m5k D:g-m1800 adl7-m10k"
uptime > $R/raise_uptime.txt
python $R/tau_study.py --shapes $S --eps 0.1 0.3 1 3 10 --variants 5,8 5,10 5,12 \
    --seeds 0 1 2 3 4 > $R/raw_raise.txt 2> $R/stderr_raise.txt
uptime >> $R/raise_uptime.txt
grep -v "^#" $R/raw_raise.txt > /tmp/tau33_raise3_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/tau33_raise3_rows.txt > $R/summary_raise.txt
python $R/../stein32/cell_ci.py $R/raw_raise.txt 5,8 5,10 5,12 > $R/ci_raise.txt

#!/bin/bash
# Information only (after both fit rounds had rejected every variant by the worst-cell rule): the two mildest plain
# variants, 4,8 (tau_2 only) and 5,5 (tau_3 only), c = 0.25, on the 30 seen shapes round 1 did not reach, so that the
# negative record has seen geometric means over all 36 shapes. -> raw_info_plain.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/tau33
S="G:g-geo-skew-m2k tit6-skew-m1k F:f-dir-m1500 G:g-dir-m800 tit9-a03-m1k F:f-geo-m1100 G:g-geo-m1600 tit9-geo4-m800
   F:f-flat-m900 G:g-skew-m3k cat9-wide-m1k F:f-geo-m650 G:g-flat-m1800 adl7-geo-m3k F:f-dir-m3500 G:g-dir-m2500
   cat8-m400 F:f-geo-m2200 D:d-flat-m700 tit9-a1-m2k F:f-geo-m4500 D:g-m600 cat6-geo-m2k F:f-dir-m6k D:d-mix-m900
   cat10-geo-m300 G:g-geo-m5k D:g-m1800 adl7-m10k"
uptime > $R/info_plain_uptime.txt
python $R/tau_study.py --shapes $S --eps 0.1 0.3 1 3 10 --variants 5,8 4,8 5,5 \
    --seeds 0 1 2 3 4 > $R/raw_info_plain.txt 2> $R/stderr_info_plain.txt
uptime >> $R/info_plain_uptime.txt

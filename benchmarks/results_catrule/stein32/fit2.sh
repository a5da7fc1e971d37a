#!/bin/bash
# Fit round 2 (after set F; set F is seen now): the bands inf,inf with a constant c < 1 for the sets of order >= 2
# (variant suffix ~C, study-side wrapper of shrink_residuals; the 1-way sets keep c = 1), on the fit shapes and set F,
# epsilon 0.1-3 and 10, seeds 0-4. -> raw_fit2.txt, summary_fit2.txt, ci_fit2.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein32
P="tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k tit6-m1k tit6-skew-m1k cat6-wide-m2k
   cat10-m300 tit9-a03-m1k tit6-geo-m1k cat6-geo-m2k cat10-geo-m300 tit9-geo3-m2k adl7-geo-m3k adl7-m10k adl7-geo-m10k
   cat8-m400 cat12-m600 cat8-geo-m500 tit9-geo4-m800 tit9-a1-m2k cat9-a03-m1k"
D="D:d-small-m500 D:d-mix-m900 D:d-flat-m700 D:d-a03-m2500 D:d-wide-m1200 D:g-m600 D:g-m1800 D:g-m350 D:g-m5k D:g-a1-m1k"
E="E:e-bin-m450 E:e-mix-m800 E:e-flat-m1k E:e-a04-m3k E:e-geo-m400 E:e-geo-m1300 E:e-geo-m2500 E:e-geo-m700"
F="F:f-skew-m2k F:f-geo-skew-m1500 F:f-dir-m1500 F:f-dir-m3500 F:f-flat-m900 F:f-dir-m6k F:f-geo-m1100 F:f-geo-m2200
   F:f-geo-m4500 F:f-geo-m650"
uptime > $R/fit2_uptime.txt
python $R/stein_higher.py --shapes $F $P $D $E --eps 0.1 0.3 1 3 10 --variants 0,0 inf,inf~0.25 \
    --seeds 0 1 2 3 4 > $R/raw_fit2.txt 2> $R/stderr_fit2.txt
uptime >> $R/fit2_uptime.txt
grep -v "^#" $R/raw_fit2.txt > /tmp/stein32_fit2_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/stein32_fit2_rows.txt > $R/summary_fit2.txt
python $R/cell_ci.py $R/raw_fit2.txt 0,0 inf,inf~0.25 > $R/ci_fit2.txt

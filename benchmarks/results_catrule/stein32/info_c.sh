#!/bin/bash
# Information only, AFTER set F rejected the bands (set F is seen now): does a smaller constant c for the sets of
# order >= 2 (variant suffix ~C, study-side wrapper) cut the skewed shapes' loss, and what does it keep of the gains?
# Set F, seeds 0-4. -> raw_info_c.txt, summary_info_c.txt, ci_info_c.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein32
uptime > $R/info_c_uptime.txt
python $R/stein_higher.py --shapes F:f-skew-m2k F:f-geo-skew-m1500 F:f-dir-m3500 F:f-geo-m2200 F:f-flat-m900 \
    --eps 1 3 10 --variants 0,0 inf,inf inf,inf~0.5 inf,0~0.5 inf,inf~0.25 --seeds 0 1 2 3 4 \
    > $R/raw_info_c.txt 2> $R/stderr_info_c.txt
uptime >> $R/info_c_uptime.txt
grep -v "^#" $R/raw_info_c.txt > /tmp/stein32_c_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/stein32_c_rows.txt > $R/summary_info_c.txt
python $R/cell_ci.py $R/raw_info_c.txt 0,0 inf,inf inf,inf~0.5 inf,0~0.5 inf,inf~0.25 > $R/ci_info_c.txt

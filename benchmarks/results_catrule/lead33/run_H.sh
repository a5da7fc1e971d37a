#!/bin/bash
# lead33: set H (tau33's fresh set, never run before) against main, tau_3 = 10 / 12 (decision rule in notes.md)
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/lead33
uptime > $R/H_uptime.txt
python benchmarks/results_catrule/tau33/tau_study.py --shapes H:h-tit-m1200 H:h-tit-geo-m1500 H:h-tit-skew-m1800 H:h-tit-geo-skew-m1k H:h-skew-m2500 H:h-dir-m700 H:h-flat-m1300 H:h-geo-m3k H:h-dir-m8k H:h-geo-m450 --eps 0.1 0.3 1 3 10 --variants 5,8 5,10 5,12 \
    --seeds 0 1 2 3 4 > $R/raw_H.txt 2> $R/stderr_H.txt
uptime >> $R/H_uptime.txt
grep -v "^#" $R/raw_H.txt > /tmp/lead33_H_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/lead33_H_rows.txt > $R/summary_H.txt
python benchmarks/results_catrule/stein32/cell_ci.py $R/raw_H.txt 5,8 5,10 5,12 > $R/ci_H.txt

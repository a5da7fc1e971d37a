#!/bin/bash
# Summaries of the fresh set D: catrule_drop_summary.py (per cell geometric mean over seeds of offset 0 / offset 2,
# then geometric mean and worst cell) on seeds 0-5 (run 1) and on seeds 0-29 (runs 1 + 2), and per-cell 95%
# t-intervals (cell_ci.py).
source /work/venv/bin/activate
R=benchmarks/results_catrule/stein31
grep -hv "^#" $R/raw_fresh.txt > /tmp/stein31_rows1.txt
python benchmarks/catrule_drop_summary.py /tmp/stein31_rows1.txt > $R/summary_fresh.txt
if [ -f $R/raw_fresh2.txt ]; then
  { cat $R/raw_fresh.txt; grep -v "^shape" $R/raw_fresh2.txt; } | grep -v "^#" > /tmp/stein31_rows_all.txt
  python benchmarks/catrule_drop_summary.py /tmp/stein31_rows_all.txt > $R/summary_fresh_all.txt
  python $R/cell_ci.py /tmp/stein31_rows_all.txt > $R/ci_fresh_all.txt
fi

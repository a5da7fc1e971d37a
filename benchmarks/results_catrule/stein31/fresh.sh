#!/bin/bash
# Fresh held-out set D (stein_fresh.FRESH, committed before this ran): ONE_WAY_SHRINK_OFFSET 2 (the rule) vs 0,
# paired, epsilon 0.1-3, every cell where some measured 1-way set is below the band.
# Run 1: `bash fresh.sh` (seeds 0-5 -> raw_fresh.txt); run 2: `SEEDS="$(seq -s ' ' 6 29)" TAG=2 bash fresh.sh`
# (seeds 6-29 -> raw_fresh2.txt). Summary over both: `bash summarize.sh`.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein31
SEEDS=${SEEDS:-"0 1 2 3 4 5"}
if [ -n "$OLD" ]; then
  uptime > $R/fresh_old_uptime.txt
  python $R/stein_fresh.py --old --eps 0.1 0.3 1 3 --seeds $(seq 0 29) > $R/raw_fresh_old.txt 2> $R/stderr_fresh_old.txt
  uptime >> $R/fresh_old_uptime.txt
  grep -v "^#" $R/raw_fresh_old.txt > /tmp/stein31_rows_old.txt
  python benchmarks/catrule_drop_summary.py /tmp/stein31_rows_old.txt > $R/summary_fresh_old.txt
  exit 0
fi
uptime > $R/fresh${TAG}_uptime.txt
python $R/stein_fresh.py --eps 0.1 0.3 1 3 --seeds $SEEDS > $R/raw_fresh${TAG}.txt 2> $R/stderr_fresh${TAG}.txt
uptime >> $R/fresh${TAG}_uptime.txt
# Run 3 (added after runs 1-2, same cells and seeds 0-29): main e2c03a6's rule as the common baseline, as in
# pubrule31's worst-cell comparisons: `OLD=1 bash fresh.sh` -> raw_fresh_old.txt, summary_fresh_old.txt.

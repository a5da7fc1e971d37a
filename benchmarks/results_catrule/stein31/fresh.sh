#!/bin/bash
# Fresh held-out set D (stein_fresh.FRESH, committed before this ran): ONE_WAY_SHRINK_OFFSET 2 (the rule) vs 0,
# paired, epsilon 0.1-3, every cell where some measured 1-way set is below the band.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein31
SEEDS=${SEEDS:-"0 1 2 3 4 5"}
uptime > $R/fresh_uptime.txt
python $R/stein_fresh.py --eps 0.1 0.3 1 3 --seeds $SEEDS > $R/raw_fresh.txt 2> $R/stderr_fresh.txt
uptime >> $R/fresh_uptime.txt
python benchmarks/catrule_drop_summary.py $R/raw_fresh.txt > $R/summary_fresh.txt

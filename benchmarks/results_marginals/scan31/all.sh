#!/usr/bin/env bash
# scan31: every record of this folder, in order, one process at a time (see COMMAND.md)
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
R=benchmarks/results_marginals/scan31
uptime
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python $R/tables_identical.py /tmp/scan31_new /tmp/scan31_base $R/tables_identical.txt \
    0.3:0 0.3:1 0.3:2 0.3:3 1:0 1:1 1:2 1:3
LABEL=${LABEL:?} NEW_SRC=/tmp/scan31_new BASE_SRC=/tmp/scan31_base bash $R/run_paired.sh > $R/run_paired.log 2>&1
python benchmarks/runtime_vs_pgm.py --summary $R/paired.jsonl > $R/summary_paired.txt
LABEL=${LABEL:?} NEW_SRC=/tmp/scan31_new BASE_SRC=/tmp/scan31_base bash $R/run_mst.sh > $R/run_mst.log 2>&1
uptime

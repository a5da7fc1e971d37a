#!/usr/bin/env bash
# Two more same-run AIM draws on titanic at epsilon 1 against the branch's new default (the lead's harness unchanged;
# branch snapshot `git archive HEAD sosproj | tar -x -C /tmp/pubrule31_new`); AIM's noise is not seeded.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_catrule/pubrule31
L=${LABEL:-pubrule31}
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src /tmp/pubrule31_new --out $R/rows_aim1.jsonl \
    --cells aim:titanic:1:1 aim:titanic:1:2
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows_aim1.jsonl > $R/summary_aim1.txt

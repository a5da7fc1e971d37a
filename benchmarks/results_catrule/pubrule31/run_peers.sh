#!/usr/bin/env bash
# Same-run peers on titanic at epsilon 0.3 against the branch's new default (tau_1 = 2.5 + the 1-way shrinkage), the
# lead's harness unchanged (runtime_vs_pgm.py: sosproj, peer, sosproj per cell, one BLAS thread); branch snapshot
# `git archive HEAD sosproj | tar -x -C /tmp/pubrule31_new` (commit in the rows' label). MST's and AIM's noise is not
# seeded: every run is an independent draw.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_catrule/pubrule31
L=${LABEL:-pubrule31}
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src /tmp/pubrule31_new --out $R/rows_peers.jsonl \
    --cells mst:titanic:0.3:0,1,2,3,4 aim:titanic:0.3:0
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows_peers.jsonl > $R/summary_peers.txt

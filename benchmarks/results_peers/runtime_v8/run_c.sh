#!/usr/bin/env bash
# Same-run timing on the merged main (lead, after merging branches proj, runtime, extrap: snapshot of 34efd6d,
# `git archive 34efd6d | tar -x -C /tmp/snap8`): titanic and adult, whose default's extrapolation step changed.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v8
S=${SOSPROJ_SRC:-/tmp/snap8}
L=34efd6d
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$S" --out $R/rows_c.jsonl --sosproj-repeats 2 \
    --cells mst:titanic:0.3:0,1 mst:titanic:1:0,1 mst:titanic:3:0,1
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$S" --out $R/rows_c.jsonl --sosproj-repeats 1 \
    --cells mst:adult:1:0 mst:adult:0.3:0 mst:adult:3:0
uptime

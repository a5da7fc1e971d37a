#!/usr/bin/env bash
# Same-run timing, titanic + adult (sosproj = this worktree at the commit in the label), one BLAS thread.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v8
S=${SOSPROJ_SRC:-/tmp/snap_b5438f5}   # git archive b5438f5 sosproj | tar -x -C /tmp/snap_b5438f5
L=b5438f5
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$S" --out $R/rows_a.jsonl --sosproj-repeats 2 --peer-timeout 3600 \
    --cells aim:titanic:1:0
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$S" --out $R/rows_a.jsonl --sosproj-repeats 2 \
    --cells mst:titanic:0.3:0,1 mst:titanic:1:0,1 mst:titanic:3:0,1
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$S" --out $R/rows_a.jsonl --sosproj-repeats 1 \
    --cells mst:adult:1:0
uptime

#!/usr/bin/env bash
# Same-run timing, nltcs: this branch's sosproj (snapshot /tmp/snap_new = git archive <label> sosproj) against MST
# and against main at b5438f5 (snapshot /tmp/snap_b5438f5), interleaved; then the paired accuracy / CPU check
# (no peer) on nltcs (5 seeds x 6 eps) and planted32 (eps 1 x 2 seeds, eps 0.3 x 1 seed); one BLAS thread.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v8
NEW=${NEW_SRC:-/tmp/snap_new}
BASE=${BASE_SRC:-/tmp/snap_b5438f5}
L=${LABEL:-9fbab48}
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out $R/rows_b.jsonl \
    --sosproj-repeats 2 --cells mst:nltcs:0.3:0,1 mst:nltcs:1:0,1 mst:nltcs:3:0,1
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out $R/rows_paired.jsonl \
    --sosproj-repeats 1 --cells none:nltcs:0.03:0,1,2,3,4 none:nltcs:0.1:0,1,2,3,4 none:nltcs:0.3:0,1,2,3,4 \
    none:nltcs:1:0,1,2,3,4 none:nltcs:3:0,1,2,3,4 none:nltcs:10:0,1,2,3,4 none:planted32:1:0,1 none:planted32:0.3:0
uptime
# 03:42 UTC, appended: planted32 epsilon 1 seeds 2-4 (5 seeds in all) and epsilon 3 seed 0
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out $R/rows_paired.jsonl \
    --sosproj-repeats 1 --cells none:planted32:1:2,3,4 none:planted32:3:0
uptime

#!/usr/bin/env bash
# Same-run check of the cube step's certified-gap stop (branch cube, issue 14): this branch's sosproj
# (snapshot /tmp/snap_cube = git archive 3a8b2d2 sosproj) against main at e1ff240 (/tmp/snap_e1ff240) and MST;
# one BLAS thread. Paired accuracy first (no peer), then MST nltcs 0.3 / 1 / 3 (seeds 0, 1).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v9
NEW=${NEW_SRC:-/tmp/snap_cube}
BASE=${BASE_SRC:-/tmp/snap_e1ff240}
L=${LABEL:-3a8b2d2}
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out $R/rows_paired.jsonl \
    --sosproj-repeats 1 --cells none:nltcs:0.3:0,1,2,3,4 none:nltcs:1:0,1,2,3,4 none:nltcs:3:0,1,2,3,4 \
    none:nltcs:10:0,1,2,3,4 none:planted32:1:0,1 none:planted32:3:0,1
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out $R/rows_mst.jsonl \
    --sosproj-repeats 2 --cells mst:nltcs:0.3:0,1 mst:nltcs:1:0,1 mst:nltcs:3:0,1
uptime

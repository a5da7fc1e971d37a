#!/usr/bin/env bash
# Paired accuracy / CPU of the default with CUBE_GAP_TOL = 0.05 (snapshot /tmp/snap_cube05 = git archive bbd57c7
# sosproj) against main at e1ff240 (/tmp/snap_e1ff240), no peer; one BLAS thread.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v9
NEW=${NEW_SRC:-/tmp/snap_cube05}
BASE=${BASE_SRC:-/tmp/snap_e1ff240}
L=${LABEL:-bbd57c7}
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out $R/rows_paired_b.jsonl \
    --sosproj-repeats 1 --cells none:nltcs:0.3:0,1,2,3,4 none:nltcs:1:0,1,2,3,4 none:nltcs:3:0,1,2,3,4 \
    none:nltcs:10:0,1,2,3,4 none:planted32:1:0 none:planted32:3:0
uptime

#!/usr/bin/env bash
# Paired accuracy / CPU of this branch's default (snapshot NEW_SRC = git archive <commit> sosproj) against main at
# 5778d9e (BASE_SRC = git archive 5778d9e), no peer; one BLAS thread (issue 14, branch cube, 2026-11-27).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v10
NEW=${NEW_SRC:-/tmp/snap_cube10a}
BASE=${BASE_SRC:-/tmp/cube_base}
L=${LABEL:-baec6da}
OUTF=${OUTF:-$R/rows_paired.jsonl}
uptime
python benchmarks/runtime_vs_pgm.py --label "$L" --sosproj-src "$NEW" --baseline-src "$BASE" --out "$OUTF" \
    --sosproj-repeats 1 --cells none:nltcs:0.3:0,1,2,3,4 none:nltcs:1:0,1,2,3,4 none:nltcs:3:0,1,2,3,4 \
    none:nltcs:10:0,1,2,3,4 none:planted32:1:0,1 none:planted32:3:0,1
uptime

#!/usr/bin/env bash
# The titanic cells against AIM not run before: epsilon 0.3 and 3 (seeds 0-2 for sosproj; AIM's noise is not seeded,
# so each AIM run is an independent draw), main at 69fd9cf (snapshot `git archive 69fd9cf sosproj | tar -x -C
# /tmp/snap29`). Lead, session 29, 2026-11-27; the box was shared with four engineers (load in the rows).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v29_aim
uptime
python benchmarks/runtime_vs_pgm.py --label "69fd9cf" --sosproj-src /tmp/snap29 --out $R/rows.jsonl \
    --cells aim:titanic:0.3:0 aim:titanic:3:0 aim:titanic:0.3:1 aim:titanic:3:1 aim:titanic:0.3:2 aim:titanic:3:2
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows.jsonl > $R/summary.txt

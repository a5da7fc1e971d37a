#!/usr/bin/env bash
# Paired accuracy / CPU of this branch's default (NEW_SRC = git archive <commit> sosproj) against main at c0b4b48
# (BASE_SRC = git archive c0b4b48 sosproj), no peer; one BLAS thread (issue 14, branch lnnb, 2026-11-27).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v13
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" --baseline-src "${BASE_SRC:-/tmp/lnnb_base}" \
    --out "${OUTF:-$R/rows_paired.jsonl}" --sosproj-repeats 1 \
    --cells none:nltcs:0.3:0,1,2,3,4 none:nltcs:1:0,1,2,3,4 none:nltcs:3:0,1,2,3,4 \
    none:nltcs:10:0,1,2,3,4 none:planted32:1:0,1 none:planted32:3:0,1
uptime

#!/usr/bin/env bash
# planted64 (n = 64, all 3-way, two-block cube path), this branch vs main c0b4b48, seed 0, eps 0.3 / 1 (branch lnnb).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v13
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" --baseline-src "${BASE_SRC:-/tmp/lnnb_base}" \
    --out "${OUTF:-$R/rows_planted64.jsonl}" --sosproj-repeats 1 \
    --cells none:planted64:0.3:0 none:planted64:1:0
uptime

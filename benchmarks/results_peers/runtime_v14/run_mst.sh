#!/usr/bin/env bash
# Same-run comparison with MST on nltcs (issue 14, lead, session 27 end): the merged default (NEW_SRC = git archive
# <commit> sosproj) and main at d221599, the session start (BASE_SRC), interleaved around each MST run; eps 0.3 / 1 / 3, seeds 0, 1
# (6 MST runs); one BLAS thread in every process. MST from /work/venv-peers (smartnoise-synth).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v14
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" \
    --baseline-src "${BASE_SRC:-/tmp/lnnb_base}" --out "${OUTF:-$R/rows_mst.jsonl}" --sosproj-repeats 2 \
    --cells mst:nltcs:0.3:0,1 mst:nltcs:1:0,1 mst:nltcs:3:0,1
uptime

#!/usr/bin/env bash
# Held-out titanic check against MST at epsilon 0.3 (5 seeds) and AIM at epsilon 1 (seeds 3, 4; seeds 0-2 are
# runtime_v8 / runtime_v9_aim), same run: NEW = `git archive <cat29 commit> sosproj | tar -x -C /tmp/cat29_new`
# (AUTO_SKIP_SNR = (5, 5, 8)), BASE = the same of main 69fd9cf (/tmp/cat29_base), interleaved around each peer run
# (sosproj, peer, base, sosproj, base); one BLAS thread in every process; MST / AIM from /work/venv-peers.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_catrule/cat29
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src /tmp/cat29_new --baseline-src /tmp/cat29_base \
    --out $R/rows_peers.jsonl --cells ${CELLS:-mst:titanic:0.3:0 mst:titanic:0.3:1 mst:titanic:0.3:2 mst:titanic:0.3:3 \
    mst:titanic:0.3:4 aim:titanic:1:3 aim:titanic:1:4}
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows_peers.jsonl > $R/summary_peers.txt

#!/usr/bin/env bash
# Lead, session 29 end: merged main (lnn29's compiled LNN dual step + cat29's per-order skip rule; NEW_SRC = `git
# archive` snapshot of it) against MST on adult, epsilon 0.3 / 1 / 3, seeds 0 and 1, one BLAS thread, the box
# otherwise idle (the engineers had stopped). MST from /work/venv-peers (smartnoise-synth).
# Usage: NEW_SRC=/tmp/snap29m LABEL=<commit> bash benchmarks/results_marginals/lead29/run_mst.sh
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_marginals/lead29
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" --out $R/rows_mst.jsonl \
    --sosproj-repeats 1 --cells mst:adult:0.3:0 mst:adult:1:0 mst:adult:3:0 mst:adult:0.3:1 mst:adult:1:1 mst:adult:3:1
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows_mst.jsonl > $R/summary_mst.txt

#!/usr/bin/env bash
# scan31 (copied from adult31): NEW (branch snapshot) and main d1e9945 against MST on adult, same run
# (NEW, MST, base, NEW, base per cell), one BLAS thread; MST from /work/venv-peers (smartnoise-synth).
# Usage: NEW_SRC=/tmp/scan31_new BASE_SRC=/tmp/scan31_base LABEL=<commit> bash run_mst.sh
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_marginals/scan31
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" --baseline-src "${BASE_SRC:?}" \
    --out "${OUTF:-$R/rows_mst.jsonl}" --sosproj-repeats 2 \
    --cells ${CELLS:-mst:adult:0.3:0 mst:adult:0.3:1 mst:adult:0.3:2 mst:adult:0.3:3}
uptime
python benchmarks/runtime_vs_pgm.py --summary "${OUTF:-$R/rows_mst.jsonl}" > $R/summary_mst.txt

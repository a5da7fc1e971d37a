#!/usr/bin/env bash
# scan31: NEW (branch snapshot) against main d1e9945, interleaved per cell
# (sosproj NEW, base, NEW, base), adult all 3-way, delta 1e-9, one BLAS thread, seeds 0-3 at epsilon 0.3 / 1 (copied from adult31).
# Usage: NEW_SRC=/tmp/scan31_new BASE_SRC=/tmp/scan31_base LABEL=<commit> OUTF=... bash run_paired.sh
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_marginals/scan31
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" --baseline-src "${BASE_SRC:?}" \
    --out "${OUTF:-$R/paired.jsonl}" --sosproj-repeats 2 \
    --cells ${CELLS:-none:adult:0.3:0 none:adult:0.3:1 none:adult:0.3:2 none:adult:0.3:3 none:adult:1:0 none:adult:1:1 none:adult:1:2 none:adult:1:3}
uptime

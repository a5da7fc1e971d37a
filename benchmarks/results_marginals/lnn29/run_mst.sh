#!/usr/bin/env bash
# Same-run comparison with MST on adult (issue 14, branch lnn29, session 29): NEW_SRC = `git archive <commit> sosproj`
# of this branch, BASE_SRC = the same of main 69fd9cf, interleaved around each MST run (sosproj, MST, base, sosproj,
# base); epsilon 0.3 / 1 / 3, seed 0; one BLAS thread in every process. MST from /work/venv-peers (smartnoise-synth).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_marginals/lnn29
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:?}" --sosproj-src "${NEW_SRC:?}" \
    --baseline-src "${BASE_SRC:?}" --out "${OUTF:-$R/rows_mst.jsonl}" --sosproj-repeats ${REPEATS:-2} \
    --cells ${CELLS:-mst:adult:1:0 mst:adult:0.3:0 mst:adult:3:0}
uptime

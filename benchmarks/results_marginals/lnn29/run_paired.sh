#!/usr/bin/env bash
# Paired accuracy / CPU of branch lnn29 (compiled LNN dual step; NEW_SRC = git archive snapshot) against main
# 69fd9cf (BASE_SRC): adult seeds 0-2 at every epsilon 0.03-10, titanic 5 seeds at 0.3 / 1 / 3, then adult seeds
# 3-4. One BLAS thread. NEW and BASE both run in /work/venv (numba installed there; the base does not use it).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/lnn29
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 3 0.3 0.03 10 0.1 --seeds 0 1 2 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired.jsonl
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired_titanic.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 3 0.3 0.03 10 0.1 --seeds 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired.jsonl
uptime

#!/usr/bin/env bash
# Paired accuracy / CPU of the branch (NEW_SRC snapshot) against main d75fdf8 (BASE_SRC snapshot), every release in
# its own child process, one BLAS thread (benchmarks/extrap_study.py); adult 5 seeds at epsilon 1, 3, 0.3, 10, 0.03,
# 0.1, titanic 5 seeds at 0.3, 1, 3.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/adult_28
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons ${EPSILONS:-1 3 0.3 10 0.03 0.1} --seeds 0 1 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out ${OUTF:-$D/paired.jsonl}
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out ${OUTF:-$D/paired.jsonl}
uptime

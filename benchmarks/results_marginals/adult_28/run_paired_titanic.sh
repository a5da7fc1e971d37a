#!/usr/bin/env bash
# Titanic, paired final default (NEW_SRC) against main d75fdf8 (BASE_SRC), 5 seeds at epsilon 0.3 / 1 / 3.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/adult_28
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired_titanic.jsonl
uptime

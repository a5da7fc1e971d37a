#!/usr/bin/env bash
# Second stream of the paired study (started 12:04 UTC beside run_paired.sh, which covers adult at 1 / 3 / 0.3 first;
# the box was at load 8-9): titanic 5 seeds at 0.3 / 1 / 3, then adult at 0.03 / 0.1 / 10, seeds 0-2 first.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/adult_28
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired_b.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 0.03 10 0.1 --seeds 0 1 2 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired_b.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 0.03 10 0.1 --seeds 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired_b.jsonl
uptime

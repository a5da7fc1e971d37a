#!/usr/bin/env bash
# adult epsilon 0.03 (sub-second releases), 5 seeds, 215ff82 (NEW_SRC snapshot: the measured family's dual compiled
# from the start only when a >= 2-way set is measured) against main 69fd9cf (BASE_SRC); one BLAS thread.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/lnn29
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 0.03 --seeds 0 1 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired_eps003_215ff82.jsonl
uptime

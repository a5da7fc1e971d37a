#!/bin/bash
# adult rows of benchmarks/extrap_study.py (NEW = git archive snapshot of this branch in /tmp/extrap_new,
# OLD = git archive b5438f5 in /tmp/extrap_base); OLD re-run at eps 1 seeds 0-1 only (~210 s CPU each),
# the other OLD L1 values from the v7 rows (benchmarks/results_peers/v7_adult_[AB].jsonl, same code).
WT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$WT" || exit 1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_marginals/extrap_v8/study.jsonl
S="python benchmarks/extrap_study.py --new-src /tmp/extrap_new --base-src /tmp/extrap_base --datasets adult --out $OUT"
uptime
$S --epsilons 1 --seeds 0 1 --which both
$S --epsilons 1 --seeds 2 3 4 --which new
$S --epsilons 0.3 3 --seeds 0 1 2 --which new
uptime

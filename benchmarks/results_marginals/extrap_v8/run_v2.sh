#!/bin/bash
# NEW rows of benchmarks/extrap_study.py with solve_dual's KKT stopping test (snapshot of this branch in
# /tmp/extrap_new); the OLD rows (b5438f5 in /tmp/extrap_base) are those of the first run (same code, kept in
# study.jsonl; the first run's NEW rows, gap stopping test, are in gapcriterion_study.jsonl).
WT=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$WT" || exit 1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_marginals/extrap_v8/study.jsonl
S="python benchmarks/extrap_study.py --new-src /tmp/extrap_new --base-src /tmp/extrap_base --out $OUT --which new"
uptime
$S --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4
$S --datasets adult --epsilons 1 --seeds 0 1 2 3 4
$S --datasets adult --epsilons 0.3 3 --seeds 0 1 2
uptime

#!/bin/bash
# v7 adult rows at epsilon 0.3 / 1 / 3 (the AIM / MST cells), the merged default (skip rule + LNN), 5 seeds,
# run by the lead on a `git archive` snapshot of main after merging catrule (commit in COMMANDS.md).
# Two processes: ./v7_adult3.sh SNAP A  (eps 1 seeds 0-4, then eps 3 seeds 0-2)
#                ./v7_adult3.sh SNAP B  (eps 0.3 seeds 0-4, then eps 3 seeds 3-4)
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
PART=${2:?A or B}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=$WT/benchmarks/results_peers/v7_adult_$PART.jsonl
run() { uptime; python $CODE/benchmarks/marginals_peers.py --datasets adult --epsilons "$1" --seeds ${@:2} \
    --methods sosproj --trace-seed -1 --out $OUT; }
if [ "$PART" = A ]; then run 1 0 1 2 3 4; run 3 0 1 2; else run 0.3 0 1 2 3 4; run 3 3 4; fi
uptime

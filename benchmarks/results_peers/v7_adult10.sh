#!/bin/bash
# v7 adult rows at epsilon 10 (the merged default, skip rule + LNN), seeds 0-4, on the snapshot of v7_adult3.sh.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
uptime
python $CODE/benchmarks/marginals_peers.py --datasets adult --epsilons 10 --seeds 0 1 2 3 4 \
    --methods sosproj --trace-seed -1 --out $WT/benchmarks/results_peers/v7_adult_C.jsonl
uptime

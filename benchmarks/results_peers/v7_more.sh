#!/bin/bash
# v7 rows, second batch (branch catrule): titanic eps 10 (5 seeds; the skip rule drops sets there too), then
# adult eps 0.03 and 0.1 (seeds 0, 1: adult releases cost minutes each). Same snapshot as v7_titanic.sh
# (AUTO_SKIP_SNR = (5, 5)). CODE (first arg): the snapshot.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
uptime
python $CODE/benchmarks/marginals_peers.py --datasets titanic --epsilons 10 --seeds 0 1 2 3 4 --methods sosproj \
    --trace-seed -1 --out $WT/benchmarks/results_peers/v7_titanic.jsonl
uptime
for e in 0.03 0.1; do
    python $CODE/benchmarks/marginals_peers.py --datasets adult --epsilons $e --seeds 0 1 --methods sosproj \
        --trace-seed -1 --out $WT/benchmarks/results_peers/v7_adult.jsonl
    uptime
done

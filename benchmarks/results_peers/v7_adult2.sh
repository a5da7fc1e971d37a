#!/bin/bash
# v7 adult rows, second batch (branch catrule): the skip rule made adult releases at epsilon 0.03 take ~3 s and at
# 0.1 ~3 minutes (v7_more.sh), so the remaining seeds 2-4 there (5 seeds, like the peers' rows), then epsilon 0.3
# seed 0 (a check of the direction where the rows shown are still the v5 ones). CODE (first arg): the snapshot
# of v7_more.sh (commit 7bdf974).
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=$WT/benchmarks/results_peers/v7_adult.jsonl
uptime
python $CODE/benchmarks/marginals_peers.py --datasets adult --epsilons 0.03 0.1 --seeds 2 3 4 --methods sosproj \
    --trace-seed -1 --out $OUT
uptime
python $CODE/benchmarks/marginals_peers.py --datasets adult --epsilons 0.3 --seeds 0 --methods sosproj \
    --trace-seed -1 --out $WT/benchmarks/results_peers/v7_adult_eps03.jsonl
uptime
# afterwards: v7_adult_eps03.jsonl renamed v7check_adult_eps03.jsonl.txt (one seed of the new rule in a cell whose
# other four rows are v5: kept out of report.py's tables, quoted in docs/bench_peers.md).

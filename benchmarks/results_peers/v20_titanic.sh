#!/bin/bash
# titanic default rows on branch wide37 (issue 14, session 37): the categorical "auto" allocation with the L1
# correction (WIDE_L1_GAMMA = 1, shrinkage bands on the uncorrected scales; docs/bench_allocation.md, "The L1
# correction"). Same seeds and epsilons as v17_titanic (0-4 at 0.03-10); only sosproj's default is re-run (the peers'
# rows post-process the allocation="rp" measurement, unchanged). CODE (first arg, default the worktree): a snapshot of
# the sources (git archive of the commit); rows go to the worktree. One BLAS thread.
# Usage: bash benchmarks/results_peers/v20_titanic.sh [CODE] > benchmarks/results_peers/v20_titanic.log 2>&1
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:-$WT}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=${OUT:-$WT/benchmarks/results_peers/v20_titanic.jsonl}
uptime; date -u
for e in 0.03 0.1 0.3 1 3 10; do
    python $CODE/benchmarks/marginals_peers.py --datasets titanic --epsilons $e --seeds 0 1 2 3 4 --methods sosproj \
        --trace-seed -1 --out $OUT
done
uptime; date -u

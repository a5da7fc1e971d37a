#!/bin/bash
# titanic v6 rows (branch mixfit, issue 14): the default with the categorical mix rule re-fitted for the LNN
# reconstruction ("cat-lnn", AUTO_MIX_CAT_LNN), 5 seeds x 6 epsilons, one process; the cells whose mix
# weight changed most first (0.1, 0.3, 0.03), then 1, 3, 10. Only sosproj's default is re-run: the peers'
# v4 rows post-process the allocation="rp" measurement, which did not change.
# CODE (first arg): a snapshot of the sources to import (git archive of a commit), so edits in the worktree
# during the run cannot change it; rows go to the worktree's benchmarks/results_peers/v6_titanic.jsonl.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=$WT/benchmarks/results_peers/v6_titanic.jsonl
for e in 0.1 0.3 0.03 1 3 10; do
    python $CODE/benchmarks/marginals_peers.py --datasets titanic --epsilons $e --seeds 0 1 2 3 4 --methods sosproj \
        --trace-seed -1 --out $OUT
done

#!/bin/bash
# adult seeds 2-4, the peers that post-process sosproj's allocation="rp" measurement (options as in v4:
# GReM-LNN capped at 150 ADMM iterations, lnn-tol default) and sosproj_rp; one seed at a time over all epsilons.
# CODE (first arg, default the worktree): a snapshot of the sosproj sources to import (so edits in the worktree
# during the run cannot break it); rows go to the worktree's benchmarks/results_peers/v5_adult.jsonl.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:-$WT}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
for s in ${SEEDS:-2 3 4}; do
  python $CODE/benchmarks/marginals_peers.py --datasets adult --epsilons 1 0.3 3 0.1 10 0.03 --seeds $s \
      --methods rp rp_trunc grem_lnn sosproj_rp --lnn-max-iter 150 --trace-seed -1 \
      --out $WT/benchmarks/results_peers/v5_adult.jsonl
done

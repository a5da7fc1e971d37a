#!/bin/bash
# adult v6 rows (branch adultspeed, issue 14): the default (sosproj) on the one-vector LNN loop, whose iterates
# equal the previous loop's (tests/test_marginal_admm_fast.py), epsilon 0.1 then 0.03, seeds 0-4, one process.
# CODE (first arg): a snapshot of the sources (git archive of a commit); rows go to v6_adult.jsonl of this worktree.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=$WT/benchmarks/results_peers/v6_adult.jsonl
for e in ${EPSILONS:-0.1 0.03}; do
  for s in 0 1 2 3 4; do
    uptime
    python $CODE/benchmarks/marginals_peers.py --datasets adult --lnn-max-iter 150 --trace-seed -1 --out $OUT \
      --epsilons $e --seeds $s --methods sosproj
  done
done
uptime

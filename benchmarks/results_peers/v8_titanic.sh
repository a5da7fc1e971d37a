#!/bin/bash
# titanic v8 rows (branch extrap, issue 14): the default whose extrapolation of the unmeasured residual sets
# ends with the table-metric LNN projection solved on its dual (MarginalProjector.solve_dual) instead of the
# ADMM; 5 seeds x 6 epsilons. Only sosproj's default is re-run (the peers' v4 rows post-process the
# allocation="rp" measurement, unchanged).
# CODE (first arg): a snapshot of the sources (git archive of a commit); rows go to the worktree.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=${OUT:-$WT/benchmarks/results_peers/v8_titanic.jsonl}
uptime
for e in 0.03 0.1 0.3 1 3 10; do
    python $CODE/benchmarks/marginals_peers.py --datasets titanic --epsilons $e --seeds 0 1 2 3 4 --methods sosproj \
        --trace-seed -1 --out $OUT
done
uptime

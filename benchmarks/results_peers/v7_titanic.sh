#!/bin/bash
# titanic v7 rows (branch catrule, issue 14): the default with the skip rule of the "auto" allocation
# (AUTO_SKIP_SNR = 5: residual sets whose public set SNR is below 5 are not measured, their interactions
# extrapolated by maximum entropy), 5 seeds x 5 epsilons. Only sosproj's default is re-run: the peers' v4 rows
# post-process the allocation="rp" measurement, which did not change (paired: same seeds, same standard
# normals on the measured sets).
# CODE (first arg): a snapshot of the sources (git archive of a commit); rows go to the worktree.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=$WT/benchmarks/results_peers/v7_titanic.jsonl
uptime
for e in 0.03 0.1 0.3 1 3; do
    python $CODE/benchmarks/marginals_peers.py --datasets titanic --epsilons $e --seeds 0 1 2 3 4 --methods sosproj \
        --trace-seed -1 --out $OUT
done
uptime

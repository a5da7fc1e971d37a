#!/bin/bash
# adult v5 rows, one process, in this order (each step resumable: rows already in the file are skipped):
#  1. the peers that post-process sosproj's allocation="rp" measurement (rp, rp_trunc, grem_lnn capped at 150
#     ADMM iterations as in v4), seeds 2-4, every epsilon;
#  2. the default (sosproj) on the code with branch psd's PSD-FALLBACK fix, seeds 0-4: epsilon 1, 0.3, 3 first
#     (the cells compared with AIM / MST), then 0.1, 10, 0.03;
#  3. sosproj_rp (allocation="rp", reconstruction "auto", which the PSD-FALLBACK fix also changed), seeds 0-4.
# CODE (first arg): a snapshot of the sources to import (git archive of a commit), so edits in the worktree
# during the run cannot change it; rows go to the worktree's benchmarks/results_peers/v5_adult.jsonl.
WT=$(cd "$(dirname "$0")/../.." && pwd)
CODE=${1:?snapshot}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
OUT=$WT/benchmarks/results_peers/v5_adult.jsonl
run() { python $CODE/benchmarks/marginals_peers.py --datasets adult --lnn-max-iter 150 --trace-seed -1 --out $OUT "$@"; }
for s in 2 3 4; do run --epsilons 1 0.3 3 0.1 10 0.03 --seeds $s --methods rp rp_trunc grem_lnn; done
for e in 1 0.3 3 0.1 10 0.03; do run --epsilons $e --seeds 0 1 2 3 4 --methods sosproj; done
for e in 1 0.3 3 0.1 10 0.03; do run --epsilons $e --seeds 0 1 2 3 4 --methods sosproj_rp; done

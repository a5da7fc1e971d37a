#!/bin/bash
# adult v6 rows of the merged default (main after merging planted3, mixfit, adultspeed: the cat-lnn mix rule and the
# one-vector LNN loop), epsilon EPS (first arg), seeds 0-4, one process; CODE (second arg): a detached worktree of the
# commit; OUT (third arg): the row file. The rows of the previous (onehot) rule are in
# v6_adult_onehot_rule_superseded.jsonl.txt (not read by report.py).
EPS=${1:?eps}; CODE=${2:?snapshot}; OUT=${3:?out}
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$CODE
for s in 0 1 2 3 4; do
  uptime
  python $CODE/benchmarks/marginals_peers.py --datasets adult --lnn-max-iter 150 --trace-seed -1 --out $OUT \
    --epsilons $EPS --seeds $s --methods sosproj
done
uptime

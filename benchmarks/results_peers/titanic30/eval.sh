#!/usr/bin/env bash
# The chosen variant (0.03:0.35:2, from the synthetic fit) on the evaluation datasets, once, paired against the
# release without the selection (5 seeds x 6 epsilons); nltcs is binary (no skip rule, no selection: identical).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/titanic30
uptime > $R/eval_uptime.txt
python benchmarks/select_eval.py --datasets titanic adult --eps 0.03 0.1 0.3 1 3 10 --variant 0.03:0.35:2 \
    --seeds 0 1 2 3 4 > $R/eval_select.txt
uptime >> $R/eval_uptime.txt

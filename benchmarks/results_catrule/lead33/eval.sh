#!/bin/bash
# lead33: evaluation, ONCE, of (2.5, 5, 12) against main on titanic / adult / nltcs (only after set H passed)
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/lead33
uptime > $R/eval_uptime.txt
python $R/tau3_eval.py --tau3 12 --datasets titanic nltcs adult --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 \
    > $R/eval.txt 2> $R/stderr_eval.txt
uptime >> $R/eval_uptime.txt

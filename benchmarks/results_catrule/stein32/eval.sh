#!/bin/bash
# Evaluation, ONCE, of the variant that passed set F (BANDS, default inf,inf~0.25) against main on titanic / adult / nltcs,
# 5 seeds, every epsilon (public check: only where a set of order >= 2 is shrunk). -> eval.txt, summary_compare.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein32
uptime > $R/eval_uptime.txt
python $R/stein_eval.py --bands ${BANDS:-inf,inf~0.25} --datasets titanic adult nltcs --eps 0.03 0.1 0.3 1 3 10 \
    --seeds 0 1 2 3 4 > $R/eval.txt 2> $R/stderr_eval.txt
uptime >> $R/eval_uptime.txt
python $R/compare.py > $R/summary_compare.txt

#!/bin/bash
# Evaluation, ONCE, of the variant chosen on synthetic shapes (2.5,5,8~1: tau_1 = 2.5 and the James-Stein shrinkage
# of the measured 1-way residuals with public set SNR < 5), paired with main e2c03a6's rule (5,5,8, no shrinkage),
# 5 seeds, at the epsilons where its public choice differs (kept_chosen.txt: titanic 0.3 and 1; every other
# titanic epsilon, adult at every epsilon and nltcs (binary) give identical releases).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/eval_chosen_uptime.txt
python benchmarks/catrule_heldout.py --datasets titanic --eps 0.3 1 --base-skip 5 5 8 --base-shrink 0 0 \
    --skip 2.5 5 8 --shrink 1 0 > $R/eval_chosen_titanic.txt
uptime >> $R/eval_chosen_uptime.txt

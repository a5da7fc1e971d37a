#!/bin/bash
# Evaluation data, INFORMATION ONLY (session 31, run after every synthetic round had rejected every variant, so
# nothing here chose anything): titanic, 5 seeds, paired with main's rule (5, 5, 8), at the epsilons where the
# variant's public noise scales differ from the rule's (kept.txt; adult: identical at every epsilon for every
# variant; nltcs: binary, no skip rule). 2.5,5,8 measures Fare at 0.3 (and Age at 1); 5,5,8/0.9^2 measures
# Survived, Pclass, Sex, Embarked at 0.1.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/eval_uptime.txt
python benchmarks/catrule_heldout.py --datasets titanic --eps 0.3 1 --base-skip 5 5 8 --skip 2.5 5 8 \
    > $R/eval_titanic_tau1_2.5.txt
uptime >> $R/eval_uptime.txt
python benchmarks/catrule_heldout.py --datasets titanic --eps 0.1 --base-skip 5 5 8 --skip 5 5 8 --cell-snr 0.9 \
    --floor 2 > $R/eval_titanic_cell0.9_floor2.txt
uptime >> $R/eval_uptime.txt

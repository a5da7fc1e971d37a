#!/bin/bash
# Low-SNR study of the "auto" allocation with the categorical default reconstruction (LNN + one-hot PSD).
# Run from the worktree root: nohup bash benchmarks/results_allocation/onehot_study.sh &
# cat8x5-m500 ran first (2 seeds, weights 0, 0.5, 1, 1.5, 2, all six epsilons); then, for compute (a
# release of these shapes takes 50-70 s at the lowest epsilons on the loaded machine), 1 seed and
# weights 0, 1, 2: cat9-wide-m1k (stopped after epsilon 1), cat6-wide-m2k at the three lowest epsilons.
# cat10-m300: 3 rows of an earlier, stopped run (epsilon 0.03, weights 0, 0.5, 1).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_allocation
M="--mix 0 1 2"
# python benchmarks/allocation_study.py 2 auto cat8x5 --eps 0.03 0.1 0.3 1 3 10 > $R/raw_onehot_cat8x5.txt
# python benchmarks/allocation_study.py 1 auto cat9-wide --eps 0.03 0.1 0.3 1 3 10 $M > $R/raw_onehot_cat9wide.txt
# cat9-wide stopped at 11:50 after epsilon 1, weight 0 (compute); then:
python benchmarks/allocation_study.py 1 auto cat6-wide-m2k --eps 0.03 0.1 0.3 $M > $R/raw_onehot_cat6wide2k.txt 2>> $R/stderr_onehot.txt

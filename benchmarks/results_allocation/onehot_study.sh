#!/bin/bash
# Low-SNR study of the "auto" allocation with the categorical default reconstruction (LNN + one-hot PSD).
# Run from the worktree root: nohup bash benchmarks/results_allocation/onehot_study.sh &
# (cat8x5-m500 ran first with 2 seeds and 5 weights; the later shapes with 1 seed and weights 0, 1, 2
# for compute: a release of cat10-m300 takes ~50 s at the lowest epsilons on the loaded machine.)
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_allocation
E="--eps 0.03 0.1 0.3 1 3 10"
M="--mix 0 1 2"
python benchmarks/allocation_study.py 1 auto cat9-wide $E $M > $R/raw_onehot_cat9wide.txt 2>> $R/stderr_onehot.txt
python benchmarks/allocation_study.py 1 auto cat10 $E $M > $R/raw_onehot_cat10.txt 2>> $R/stderr_onehot.txt
python benchmarks/allocation_study.py 1 auto cat6-wide-m2k $E $M > $R/raw_onehot_cat6wide2k.txt 2>> $R/stderr_onehot.txt

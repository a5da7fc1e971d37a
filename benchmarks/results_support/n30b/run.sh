#!/bin/bash
# issue 15, session n30b: the same-run measurement of the n30b branch against main b749548 (BASE snapshot,
# `git archive b749548 sosproj | tar -x -C /tmp/n30b_base`) and the ADMM; one BLAS thread, CPU and wall.
# Run from the worktree root: PYTHONPATH=$PWD benchmarks/results_support/n30b/run.sh > benchmarks/results_support/n30b/same_run.txt
# (raw output same_run.txt, per-tensor JSON same_run_n*.json).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_support/n30b
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/n30b_base \
    --json $OUT/same_run_n30.json
uptime
python benchmarks/support_scale.py --ns 20 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/n30b_base \
    --json $OUT/same_run_n20.json
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/n30b_base \
    --json $OUT/same_run_n48.json
uptime

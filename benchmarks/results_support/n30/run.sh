#!/bin/bash
# issue 15, session n30: the same-run measurement of the n30 branch against main d221599 (BASE snapshot,
# `git archive d221599 sosproj | tar -x -C /tmp/n30_base`) and the ADMM; one BLAS thread, CPU and wall.
# Run from the worktree root: PYTHONPATH=$PWD benchmarks/results_support/n30/run.sh > benchmarks/results_support/n30/same_run.txt
# (raw output same_run.txt, per-tensor JSON same_run_n*.json; run1_c9e0ae6_* and run2_2b950d1_* are the same script on earlier commits of this branch).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_support/n30
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/n30_base \
    --json $OUT/same_run_n30.json
uptime
python benchmarks/support_scale.py --ns 20 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/n30_base \
    --json $OUT/same_run_n20.json
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/n30_base \
    --json $OUT/same_run_n48.json
uptime

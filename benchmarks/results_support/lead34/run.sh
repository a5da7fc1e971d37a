#!/bin/bash
# lead34 (issue 15, session 34): the n = 30 and n = 64 support targets re-measured on main (quiet box, one BLAS
# thread). n = 64: newton29's end-to-end script, main (NEW) against session 29's main ba56d23 (BASE), alternately,
# twice each. n = 30: support_scale.py, rankone_newton against admm in the same run, 3 tensors.
# Usage (repository root): BASE=/tmp/lead34/snap29 NEW=/tmp/lead34/mainsnap bash benchmarks/results_support/lead34/run.sh
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
uptime
bash benchmarks/results_support/newton29/e2e_n64.sh
uptime
PYTHONPATH=$NEW python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 --solvers rankone_newton admm \
    --base rankone_newton --json benchmarks/results_support/lead34/n30_same_run.json
uptime
# appended after the first part: n = 64 on both cores (two BLAS threads; the target says "on 2 cores"), wall time,
# main only, once (output run_t2.txt)
# OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 PYTHONPATH=$NEW python benchmarks/results_support/newton29/newton_only.py \
#     --n 64 --tensor 0 --tol 1e-6 --cache /tmp/lead34_e2e_t2.pkl | grep "^n=\|^rough"

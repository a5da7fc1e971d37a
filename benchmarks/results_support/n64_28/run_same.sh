#!/bin/bash
# Same-run measurement of branch n64 against main d75fdf8 (issue 15, session 28).
#   git archive d75fdf8 sosproj | tar -x -C /tmp/n64_base
# Usage: bash benchmarks/results_support/n64_28/run_same.sh TAG   (from the worktree root, venv active)
set -e
TAG=${1:-run1}
OUT=benchmarks/results_support/n64_28
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
date -u; uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 --solvers rankone_newton rankone_newton_base \
    --base rankone_newton --base-src /tmp/n64_base --max-time 1200 --json $OUT/${TAG}_n64.json
date -u; uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 --solvers rankone_newton rankone_newton_base \
    --base rankone_newton --base-src /tmp/n64_base --max-time 1200 --json $OUT/${TAG}_n48.json
date -u; uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 --solvers rankone_newton rankone_newton_base \
    --base rankone_newton --base-src /tmp/n64_base --json $OUT/${TAG}_n30.json
date -u; uptime

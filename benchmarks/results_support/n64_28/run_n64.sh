#!/bin/bash
# End-to-end same run at n = 64 (the two doc tensors), branch n64 against main d75fdf8 in a child process.
#   git archive d75fdf8 sosproj | tar -x -C /tmp/n64_base
# Usage: bash benchmarks/results_support/n64_28/run_n64.sh TAG   (worktree root, venv active)
TAG=${1:-run2}
OUT=benchmarks/results_support/n64_28
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
date -u; uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 --solvers rankone_newton rankone_newton_base \
    --base rankone_newton --base-src /tmp/n64_base --max-time 1200 --json $OUT/${TAG}_n64.json
date -u; uptime

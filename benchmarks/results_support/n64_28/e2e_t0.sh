#!/bin/bash
# End to end, tensor 0 of n = 64, each solve in a fresh process (newton_only.py with a fresh cache: the rough phase
# is computed), main d75fdf8 and the branch alternately. Usage (worktree root, venv active; the same for tensor 0):
#   bash benchmarks/results_support/n64_28/e2e_t0.sh > benchmarks/results_support/n64_28/e2e_t0.txt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for rep in 1 2; do
  for src in /tmp/n64_base $PWD; do
    rm -f /tmp/n64_e2e.pkl
    echo "## n=64 tensor 0 rep $rep src $src  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    PYTHONPATH=$src python benchmarks/results_support/n64_28/newton_only.py --n 64 --tensor 0 --tol 1e-6 \
        --cache /tmp/n64_e2e.pkl | grep "^n="
  done
done

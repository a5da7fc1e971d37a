#!/bin/bash
# n100_30 (issue 15, session 30): the Newton phase's full path at n = 48 (first tensor, rough phase cached at
# dr_gap = 0.3, where the face holds 16-58 negative eigenvalues and every decomposition is full), fresh processes,
# alternately: main ba2adb9 (BASE), this branch with FULL_TANGENT=False (the decomposition / diagonal / syr2k levers
# alone), this branch's defaults; twice. One BLAS thread. Usage (repository root, venv active):
#   BASE=/tmp/n100_30_base NEW=$PWD bash benchmarks/results_support/n100_30/n48_full_path.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
S=benchmarks/results_support/newton29/newton_only.py
F=benchmarks/results_support/n100_30/with_flags.py
C=/tmp/n100_30_n48_g03.pkl
ARGS="--n 48 --tensor 0 --tol 1e-6 --cache $C --opt dr_gap=0.3"
[ -f $C ] || PYTHONPATH=${NEW:?} python $S $ARGS --rough-only
for rep in 1 2; do
  echo "## rep $rep main $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=${BASE:?} python $S $ARGS | grep "^n="
  echo "## rep $rep branch FULL_TANGENT=False $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=${NEW:?} python $F FULL_TANGENT=False -- $ARGS | grep "^n="
  echo "## rep $rep branch defaults $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=$NEW python $S $ARGS | grep "^n="
done

#!/bin/bash
# n100_31 (issue 15, session 31): FULL_SINGLE_RTOL (float32 full-path Jacobian products in CG while its
# tolerance >= 1e-5) at n = 48 from the 0.3 hand-over (first tensor, every decomposition full: n100_30's full-path
# test bed), fresh processes alternately: main e2c03a6 (BASE), this branch with FULL_SINGLE_RTOL=None (float64, the
# main's iterates), this branch's defaults; REPS times. One BLAS thread. Usage (repository root, venv active):
#   BASE=/tmp/n100_31_base NEW=$PWD REPS=2 bash benchmarks/results_support/n100_31/n48_single.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
S=benchmarks/results_support/newton29/newton_only.py
F=benchmarks/results_support/n100_30/with_flags.py
C=/tmp/n100_30_n48_g03.pkl
ARGS="--n 48 --tensor 0 --tol 1e-6 --cache $C --opt dr_gap=0.3"
[ -f $C ] || PYTHONPATH=${NEW:?} python $S $ARGS --rough-only
for rep in $(seq 1 ${REPS:-2}); do
  echo "## rep $rep main $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=${BASE:?} python $S $ARGS | grep "^n="
  echo "## rep $rep branch FULL_SINGLE_RTOL=None $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=${NEW:?} python $F FULL_SINGLE_RTOL=None -- $ARGS | grep "^n="
  echo "## rep $rep branch defaults $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=$NEW python $S $ARGS | grep "^n="
done

#!/bin/bash
# n100_32 (issue 15, session 32): first tensor, the Newton phase alone from one cached rough phase (the rough
# phase is untouched by this branch), main 640b3a4 (BASE) and this branch (NEW) alternately, REPS times each,
# fresh processes, one BLAS thread. NS: the sizes (30, 64: cached 0.3-hand-overs; 48: n100_30's 0.3 hand-over,
# every decomposition on the full path). FLAGS: with_flags.py assignments for the branch (default: none).
# Usage (repository root, venv active):
#   BASE=/tmp/n100_32_base NEW=$PWD NS="30 64 48" REPS=2 bash benchmarks/results_support/n100_32/same_run.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
S=benchmarks/results_support/newton29/newton_only.py
F=benchmarks/results_support/n100_32/with_flags.py
for n in ${NS:-30 64}; do
  C=/tmp/n100_30_rough_n$n.pkl; OPT=""
  if [ "$n" = 48 ]; then C=/tmp/n100_30_n48_g03.pkl; OPT="--opt dr_gap=0.3"; fi
  [ -f $C ] || PYTHONPATH=${NEW:?} python $S --n $n --tensor 0 --tol 1e-6 --cache $C $OPT --rough-only
  for rep in $(seq 1 ${REPS:-2}); do
    echo "## n=$n rep $rep main $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    PYTHONPATH=${BASE:?} python $S --n $n --tensor 0 --tol 1e-6 --cache $C $OPT | grep "^n="
    echo "## n=$n rep $rep branch $FLAGS $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    PYTHONPATH=${NEW:?} python $F $FLAGS -- --n $n --tensor 0 --tol 1e-6 --cache $C $OPT | grep "^n=\|^inner"
  done
done

#!/bin/bash
# n100_31 (issue 15, session 31; copy of n100_30/n64_same_run.sh): n = 64 / 48 first tensor, the Newton phase alone from one cached rough phase (the
# rough phase is untouched by this branch), main e2c03a6 (BASE) and this branch (NEW) alternately, twice each, fresh
# processes, one BLAS thread. Usage (repository root, venv active):
#   BASE=/tmp/n100_31_base NEW=$PWD bash benchmarks/results_support/n100_31/n64_same_run.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
S=benchmarks/results_support/newton29/newton_only.py
for n in ${NS:-64}; do
  C=/tmp/n100_30_rough_n$n.pkl
  [ -f $C ] || PYTHONPATH=${NEW:?} python $S --n $n --tensor 0 --tol 1e-6 --cache $C --rough-only
  for rep in 1 2; do
    for src in "${BASE:?}" "${NEW:?}"; do
      echo "## n=$n rep $rep src $src  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
      PYTHONPATH=$src python $S --n $n --tensor 0 --tol 1e-6 --cache $C | grep "^n="
    done
  done
done

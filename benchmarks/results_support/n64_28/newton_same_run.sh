#!/bin/bash
# The Newton phase alone (everything after the rough phase: Newton steps, certificates, final check), main d75fdf8
# against this branch, interleaved (base, new, base, new) from the same pickled rough phase per tensor (the rough
# phase is the same code in both trees). Usage (worktree root, venv active):
#   git archive d75fdf8 sosproj | tar -x -C /tmp/n64_base
#   bash benchmarks/results_support/n64_28/newton_same_run.sh > benchmarks/results_support/n64_28/newton_same_run.txt
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
H=benchmarks/results_support/n64_28/newton_only.py
run() {   # n tensor tol
  for rep in 1 2; do
    for src in /tmp/n64_base $PWD; do
      echo "## n=$1 tensor $2 rep $rep src $src  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
      PYTHONPATH=$src python $H --n $1 --tensor $2 --tol $3 --cache /tmp/n64_rough_$1_$2.pkl | grep "^n="
    done
  done
}
run 64 0 1e-6
run 64 1 1e-6
run 48 0 1e-6
for t in 0 1 2; do run 30 $t 1e-7; done

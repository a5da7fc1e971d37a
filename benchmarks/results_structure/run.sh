#!/bin/bash
# Before/after comparison of the SDP solver path moved by the structure refactor (cones module,
# backend contract, shared residuals): the same benchmark on main (before) and on this branch
# (after), interleaved A B A B in one run, one BLAS thread.
# Usage: bash benchmarks/results_structure/run.sh MAIN_TREE BRANCH_TREE OUT_DIR
set -e
MAIN=$1; BRANCH=$2; OUT=$3
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
ARGS="--n 12 16 20 --solvers admm scs --regime dp --repeat 3 --repeat-max-n 20"
for round in 1 2; do
  for side in before after; do
    if [ $side = before ]; then TREE=$MAIN; else TREE=$BRANCH; fi
    for system in unit_ball boolean_cube; do
      (cd $TREE && PYTHONPATH=$TREE python benchmarks/moment_projection.py --system $system $ARGS \
         --json $OUT/${side}_${system}_round${round}.json) > $OUT/${side}_${system}_round${round}.txt 2>&1
    done
  done
done

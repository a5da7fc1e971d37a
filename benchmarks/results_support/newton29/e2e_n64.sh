#!/bin/bash
# newton29 (issue 15, session 29): n = 64, first tensor, end to end (rough phase computed: fresh cache), each solve in
# a fresh process, main 69fd9cf (BASE) and this branch (NEW) alternately, twice each; one BLAS thread. "setup cpu" is
# the ConicSolver construction (the certifier's set-up), "total cpu" the solve with the answer check.
# Usage (repository root, venv active): BASE=/tmp/newton29_base NEW=$PWD bash benchmarks/results_support/newton29/e2e_n64.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for rep in 1 2; do
  for t in ${TENSORS:-0}; do
    for src in "${BASE:?}" "${NEW:?}"; do
      rm -f /tmp/newton29_e2e.pkl
      echo "## n=64 tensor $t rep $rep src $src  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
      PYTHONPATH=$src python benchmarks/results_support/newton29/newton_only.py --n 64 --tensor $t --tol 1e-6 \
          --cache /tmp/newton29_e2e.pkl | grep "^n=\|^rough"
    done
  done
done

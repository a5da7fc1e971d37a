#!/bin/bash
# Lead, session 28 end: n = 64, both doc tensors, end to end (rough phase computed: fresh cache), each solve in a
# fresh process, main d75fdf8 (session start, BASE) and the merged main (NEW) alternately, twice each; one BLAS thread.
# Usage (repository root, venv active): BASE=/tmp/snap28 NEW=/tmp/snap28m bash benchmarks/results_support/lead28/e2e_n64.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for rep in 1 2; do
  for t in 0 1; do
    for src in "${BASE:?}" "${NEW:?}"; do
      rm -f /tmp/lead28_e2e.pkl
      echo "## n=64 tensor $t rep $rep src $src  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
      PYTHONPATH=$src python benchmarks/results_support/n64_28/newton_only.py --n 64 --tensor $t --tol 1e-6 \
          --cache /tmp/lead28_e2e.pkl | grep "^n="
    done
  done
done

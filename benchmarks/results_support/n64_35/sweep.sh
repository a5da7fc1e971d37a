#!/bin/bash
# n64_35 (issue 15, session 35): dr_cap_gap sweep on the branch (the partial path for faces of up to 64 negatives),
# n = 64 tensors 0-2, end to end (fresh rough phase each), one BLAS thread. A study: CPU times at the load printed.
# Usage (repository root, venv active): GAPS="0.15 0.2" bash benchmarks/results_support/n64_35/sweep.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for g in ${GAPS:?}; do
  for t in ${TENSORS:-0 1 2}; do
    echo "## n=64 tensor $t dr_cap_gap=$g $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    PYTHONPATH=$PWD python benchmarks/results_support/n64_35/newton_only.py --n 64 --tensor $t --tol 1e-6 \
        --cache /tmp/n64_35_cg${g}_t$t.pkl --opt dr_cap_gap=$g --trace > benchmarks/results_support/n64_35/traces/cg${g}_t${t}_new.txt 2>&1
    grep "^n=\|^rough" benchmarks/results_support/n64_35/traces/cg${g}_t${t}_new.txt
  done
done

#!/bin/sh
# proj28: main's snapshot (d75fdf8, `git archive d75fdf8 sosproj | tar -x -C /tmp/proj28_base`) with solver="admm"
# against this branch with solver="auto", interleaved (A, B, A, B), one BLAS thread, the 2-core shared box:
#   sh benchmarks/results_sdp/proj28/run_local.sh > benchmarks/results_sdp/proj28/local.jsonl
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
T=benchmarks/results_sdp/proj28/timing.py
for case in "dp 30" "boundary 30" "dp 40"; do
  for rep in 1 2 3; do
    PYTHONPATH=/tmp/proj28_base python $T $case admm
    PYTHONPATH=$PWD python $T $case auto
  done
done
PYTHONPATH=/tmp/proj28_base python $T dp 50 admm
PYTHONPATH=$PWD python $T dp 50 auto

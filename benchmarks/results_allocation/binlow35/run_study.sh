#!/bin/bash
# Session 35 (binlow35): fine grid of the cube rule's t on synthetic binary data. Two processes, one BLAS thread.
# Run from the worktree root: bash benchmarks/results_allocation/binlow35/run_study.sh
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
D=benchmarks/results_allocation/binlow35
MIX="0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0 1.2"
( python benchmarks/binlow35_study.py planted32-m20k --snr 0.3 1 3 6 10 --mix $MIX --seeds 10 --current > $D/raw_planted32-m20k.txt ) &
( for s in binary16-m5k planted16-m20k binary12-m2k prodskew16-m10k binary12-m20k planted16-m5k; do
    python benchmarks/binlow35_study.py $s --snr 0.3 1 2 3.5 6 10 20 30 --mix $MIX --seeds 10 --current > $D/raw_$s.txt
  done ) &
wait

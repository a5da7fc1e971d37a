#!/bin/bash
# Does the one-hot PSD step help after the LNN projection? Synthetic categorical shapes only (never
# nltcs/titanic/adult), one measurement per (shape, epsilon, seed), both reconstructions of it.
# Run from the worktree root on branch psd at 14:47 UTC, load average 8-10 (four engineers on 2 cores),
# after the v5 titanic recon=lnn run was stopped at epsilon 1 (5 seeds) to free its core.
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
R=benchmarks/results_allocation
python benchmarks/allocation_psd_study.py cat9-wide --seeds 1 --eps 1 3 10 0.3 0.1 > $R/raw_psd_cat9wide.txt 2> $R/stderr_psd.txt
python benchmarks/allocation_psd_study.py cat8x5 --seeds 1 --eps 1 3 10 0.3 > $R/raw_psd_cat8x5.txt 2>> $R/stderr_psd.txt

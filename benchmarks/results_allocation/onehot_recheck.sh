#!/bin/bash
# Re-check of the one-hot mix rule's low-SNR fall-off now that the categorical default reconstructs with
# LNN below public SNR 10: synthetic cat9-wide-m1k (never titanic/adult), one seed, the LNN reconstruction,
# the one-hot rule's t against the LNN rule's t = 2 at epsilon 0.1 (snr 0.0089: t 0.162) and 0.3 (snr 0.0267:
# t 1.407). 15:36 UTC, branch psd, load 5-6, two processes.
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
R=benchmarks/results_allocation
python benchmarks/allocation_study.py 1 lnn cat9-wide --eps 0.1 --mix 0.162 2 > $R/raw_recheck_cat9wide_eps0.1.txt 2>> $R/stderr_recheck.txt &
python benchmarks/allocation_study.py 1 lnn cat9-wide --eps 0.3 --mix 1.407 2 > $R/raw_recheck_cat9wide_eps0.3.txt 2>> $R/stderr_recheck.txt &
wait

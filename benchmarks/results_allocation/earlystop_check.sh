#!/bin/bash
# Is the titanic gap to the v4 recon=lnn rows (1.088 / 1.120 at epsilon 0.1 / 0.3) the allocation rule or the
# v4 LNN's early stop? Synthetic tit6-skew-m1k (never titanic), seed 0, weights 0 and 2, the LNN as in v4
# (1,000 iterations, initial penalty factor 1 instead of 10), to compare with the converged rows of
# raw_lnnfit_tit6skewm1k.txt (same seed: same standard normals). Branch mixfit, 17:17 UTC, load ~5, beside the v6 titanic run.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_allocation
python benchmarks/allocation_study.py 1 lnn tit6-skew-m1k --eps 0.1 0.3 --mix 0 2 --max-iter 1000 --rho0-factor 1 \
    > $R/raw_earlystop_tit6skewm1k.txt 2> $R/stderr_earlystop.txt

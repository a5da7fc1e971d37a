#!/bin/bash
# Held-out check of the skip threshold (branch catrule, issue 14): synthetic shapes NOT used for the fit
# (fit.sh: tit9-skew-m1k, tit9-m1k, cat9-wide-m1k), other sizes / m / generators; tau = 0 (the default
# before) against the fitted tau and its neighbours; seed 1 (the fit used seed 0). Run from the worktree root.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule
uptime > $R/holdout_uptime.txt
S="python benchmarks/catrule_study.py --taus 0 3 5 --seeds 1"
$S --shapes tit6-skew-m1k cat10-m300 cat8x5-m500 cat6-wide-m2k --eps 0.03 0.1 0.3 1 3 > $R/raw_holdout.txt 2> $R/stderr_holdout.txt
$S --shapes adl7-m10k cat8-m30k --eps 0.03 0.3 3 >> $R/raw_holdout.txt 2>> $R/stderr_holdout.txt
uptime >> $R/holdout_uptime.txt

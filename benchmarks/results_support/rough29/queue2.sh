#!/bin/bash
# after e2e round 1: n = 30 / 48 same run against the snapshot, one dr_gap=0.05 run, then a second round
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
D=benchmarks/results_support/rough29
echo "load $(cut -d' ' -f1 /proc/loadavg)" > $D/scale_n30_48.txt
PYTHONPATH=$PWD python benchmarks/support_scale.py --ns 30 48 --tensors 2 --tol 1e-6 --solvers rankone_newton \
  rankone_newton_base --base rankone_newton --base-src /tmp/rough29_base --json $D/scale_n30_48.json >> $D/scale_n30_48.txt 2>&1
echo "load $(cut -d' ' -f1 /proc/loadavg)" >> $D/scale_n30_48.txt
bash $D/e2e.sh "0" 1 "branch:dr_gap=0.05" > $D/e2e_drgap005.txt 2>&1
bash $D/e2e.sh "0 1" 1 "base branch" > $D/e2e_round2.txt 2>&1

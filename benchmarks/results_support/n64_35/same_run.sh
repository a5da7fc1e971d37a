#!/bin/bash
# n64_35 (issue 15, session 35): same run, interleaved per tensor, fresh processes and fresh rough phases, one BLAS
# thread: the a4a5c3f snapshot (BASE), this branch's defaults (NEW), this branch with dr_cap_gap=0.1 (NEW + opt);
# n = 64 tensors 0-2 (newton_only.py with a fresh cache = the whole solve, the answer check included); then n = 30
# and n = 48 with support_scale.py (branch rankone_newton against the snapshot's in a child process, and n = 30's
# ADMM). Usage (repository root, venv active):
#   BASE=/tmp/n64_35_base bash benchmarks/results_support/n64_35/same_run.sh > benchmarks/results_support/n64_35/same_run.txt 2>&1
# Second repetition (reversed order, n = 64 only): ORDER="cap01 new base" SKIP_SMALL=1 BASE=... > same_run_rep2.txt
# (snapshot: mkdir -p /tmp/n64_35_base && git archive a4a5c3f sosproj | tar -x -C /tmp/n64_35_base)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
R=benchmarks/results_support/n64_35
uptime
for t in ${TENSORS:-0 1 2}; do
  for v in ${ORDER:-base new cap01}; do
    src=$PWD; opt=""
    [ $v = base ] && src=${BASE:?}
    [ $v = cap01 ] && opt="--opt dr_cap_gap=0.1"
    rm -f /tmp/n64_35_same.pkl
    echo "## n=64 tensor $t $v  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    PYTHONPATH=$src python $R/newton_only.py --n 64 --tensor $t --tol 1e-6 --cache /tmp/n64_35_same.pkl $opt \
        | grep "^n=\|^rough"
  done
done
uptime
if [ -z "$SKIP_SMALL" ]; then
PYTHONPATH=$PWD python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src $BASE --json $R/n30_same_run.json
uptime
PYTHONPATH=$PWD python benchmarks/support_scale.py --ns 48 --tensors 3 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src $BASE --json $R/n48_same_run.json
uptime
fi

#!/bin/bash
# Lead, session 29 end, quiet box (nothing else running): merged main (NEW) and the session's start (BASE) on the
# first doc tensor of n = 64, alternately, then NEW on the second; fresh processes, one BLAS thread.
# Usage: BASE=/tmp/snap29 NEW=/tmp/snap29m bash benchmarks/results_support/lead29/quiet_n64.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
for run in "0 ${NEW:?}" "0 ${BASE:?}" "0 $NEW" "1 $NEW"; do
  set -- $run
  rm -f /tmp/lead29_q.pkl
  echo "## n=64 tensor $1 src $2  $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=$2 python benchmarks/results_support/n64_28/newton_only.py --n 64 --tensor $1 --tol 1e-6 \
      --cache /tmp/lead29_q.pkl | grep "^n="
done

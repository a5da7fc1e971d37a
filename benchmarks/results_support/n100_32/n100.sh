#!/bin/bash
# n100_32 (issue 15, session 32): n = 100 first tensor, the Newton phase alone from newton29's cached 0.1 hand-over
# (/tmp/newton29_n100_g0.1.pkl: 135 DR steps, 692.9 s CPU one thread), the branch at HEAD plus FLAGS (with_flags.py
# assignments), 2 BLAS threads, 16 GiB memory guard, solver time limit LIMIT s (the process is killed LIMIT + 240 s
# after its start). Usage (repository root, venv active):
#   FLAGS="" LIMIT=4400 OUT=benchmarks/results_support/n100_32/new_newton_n100_g01_t2.txt \
#     bash benchmarks/results_support/n100_32/n100.sh
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 SOSPROJ_MEMORY_LIMIT=17179869184
OUT=${OUT:?}
{
  echo "# branch $(git rev-parse --abbrev-ref HEAD) at $(git rev-parse --short HEAD) flags [$FLAGS], 2 BLAS threads, cache /tmp/newton29_n100_g0.1.pkl, limit ${LIMIT:?} s, started $(date -u +%T) UTC, load $(cut -d' ' -f1 /proc/loadavg); command in COMMAND.md"
  PYTHONPATH=$PWD timeout $((LIMIT + 240)) python benchmarks/results_support/n100_32/with_flags.py $FLAGS -- \
    --n 100 --tensor 0 --tol 1e-6 --cache /tmp/newton29_n100_g0.1.pkl --opt dr_gap=0.1 --trace --time-limit $LIMIT
  echo "# rc $? ended $(date -u +%T) UTC, load $(cut -d' ' -f1 /proc/loadavg)"
} > $OUT 2>&1

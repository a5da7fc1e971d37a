#!/bin/sh
# Second part of the ssnal-vs-admm grid (single runs; the first part's tight-tolerance boundary rows with
# 3 repeats each were too long for the shared box): run from the repository root with
#   nohup sh benchmarks/results_sdp/ssnal_grid2.sh > benchmarks/results_sdp/ssnal_grid2.txt 2>&1 &
export PYTHONPATH=. OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
B=benchmarks/moment_projection.py
R=benchmarks/results_sdp
run() { echo; echo "\$ python $B $*"; echo "# start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; python $B "$@"; echo "# end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
run --system boolean_cube --n 12 20 --solvers admm ssnal --tol 1e-8 --repeat 1 --time-limit 300 --json $R/ssnal_cube_small_tol1e-8.json
run --regime boundary --system unit_ball --n 8 12 --solvers admm ssnal --tol 1e-8 --repeat 1 --time-limit 120 --json $R/ssnal_boundary_small_tol1e-8.json
run --system unit_ball --n 40 --solvers admm ssnal --repeat 1 --time-limit 900 --timeout 1200 --json $R/ssnal_dp40.json

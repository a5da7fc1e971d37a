#!/bin/sh
# The ssnal-vs-admm grid (same run, one BLAS thread): run from the repository root with
#   nohup sh benchmarks/results_sdp/ssnal_grid.sh > benchmarks/results_sdp/ssnal_grid.txt 2>&1 &
export PYTHONPATH=. OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
B=benchmarks/moment_projection.py
R=benchmarks/results_sdp
run() { echo; echo "\$ python $B $*"; echo "# start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; python $B "$@"; echo "# end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
run --system unit_ball --n 30 --solvers admm ssnal --repeat 1 --time-limit 600 --json $R/ssnal_dp30.json
run --regime boundary --system unit_ball --n 30 --solvers admm ssnal --repeat 1 --time-limit 600 --json $R/ssnal_boundary30.json
run --system unit_ball --n 8 12 16 --solvers admm ssnal --json $R/ssnal_dp_small.json
run --regime boundary --system unit_ball --n 8 12 16 --solvers admm ssnal --json $R/ssnal_boundary_small.json
run --system boolean_cube --n 12 20 --solvers admm ssnal --json $R/ssnal_cube_small.json
run --system unit_ball --n 8 12 16 --solvers admm ssnal --tol 1e-8 --json $R/ssnal_dp_small_tol1e-8.json
run --regime boundary --system unit_ball --n 8 12 16 --solvers admm ssnal --tol 1e-8 --time-limit 300 --json $R/ssnal_boundary_small_tol1e-8.json
run --system boolean_cube --n 12 20 --solvers admm ssnal --tol 1e-8 --time-limit 300 --json $R/ssnal_cube_small_tol1e-8.json
run --system unit_ball --n 40 --solvers admm ssnal --repeat 1 --time-limit 900 --timeout 1200 --json $R/ssnal_dp40.json

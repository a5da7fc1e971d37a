# issue 15, lead, merged main (support7 + support8): the targets say "on 2 cores", so this run uses both cores
# (two BLAS threads) on an otherwise idle box and reports WALL time; every other support_* file is one BLAS thread
# and CPU time. Raw output: support9_two_threads.txt.
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 MKL_NUM_THREADS=2
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 --solvers rankone_newton admm --base rankone_newton \
    --json benchmarks/results_support/support9_two_threads_n30.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 --solvers rankone_newton --max-time 1200 \
    --json benchmarks/results_support/support9_two_threads_n64.json
uptime

# issue 15, support7 session: one n = 100 tensor (order 5,151), new code only (branch support at the commit that
# added this file), one BLAS thread, default memory budget, the issue's 600 s limit (as the lead's support6_n100
# run of cacf7b3, which stopped at 662.6 s); raw output support7_n100.txt, JSON support7_n100.json
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 100 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton --max-time 600 --json benchmarks/results_support/support7_n100.json
uptime

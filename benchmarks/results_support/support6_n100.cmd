# issue 15, lead, 2026-11-27 ~06:40 UTC: one n = 100 tensor (order 5,151) with merged main (snapshot of cacf7b3 in
# /tmp/snap9: per-update certificate, sigma "auto", the measured-peak memory estimate), one BLAS thread, the
# DEFAULT memory budget (no SOSPROJ_MEMORY_LIMIT: the estimate is now 8.8 GiB), the issue's 600 s limit;
# raw output support6_n100.txt, JSON support6_n100.json
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
PYTHONPATH=/tmp/snap9 python benchmarks/support_scale.py --ns 100 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton --max-time 600 --json benchmarks/results_support/support6_n100.json
uptime

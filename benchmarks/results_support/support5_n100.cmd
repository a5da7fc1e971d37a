# issue 15, lead, 2026-11-27 ~04:36 UTC: one n = 100 tensor (order 5,151) with the merged main (snapshot of
# 15b8854 in /tmp/snap9), one BLAS thread, 900 s limit; raw output support5_n100.txt, JSON support5_n100.json
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
# First try without SOSPROJ_MEMORY_LIMIT: refused before any work (estimate 11.8 GiB > the 11.0 GiB default budget,
# support5_n100_refused.txt); rerun with a 16 GiB budget on the otherwise idle 24 GiB machine.
uptime
SOSPROJ_MEMORY_LIMIT=17179869184 PYTHONPATH=/tmp/snap9 python benchmarks/support_scale.py --ns 100 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton --max-time 900 --json benchmarks/results_support/support5_n100.json
uptime

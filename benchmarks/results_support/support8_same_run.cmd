# issue 15, support8 session, final code (dr_rtol_factor "auto" = 0.25 from order 1,000, in-place Douglas-Rachford
# step): one run, sequential, one BLAS thread (commands as run; raw output in support8_same_run.txt, per-tensor
# JSON in support8_same_run_n*.json). Code: branch support3 at the commit that added this file;
# rankone_newton_base = solver="rankone_newton" of main at 66aacce, run in a child process from an export of that
# commit (git archive 66aacce | tar -x -C /tmp/s3/base).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/s3/base \
    --max-time 1200 --json benchmarks/results_support/support8_same_run_n48.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/s3/base \
    --max-time 1200 --json benchmarks/results_support/support8_same_run_n64.json
uptime

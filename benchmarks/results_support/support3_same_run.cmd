# issue 15, support3 session: one run, sequential, one BLAS thread (commands as run; raw output in
# support3_same_run.txt, per-tensor JSON in support3_same_run_n*.json). Code: branch support3 at the
# commit that added this file; rankone_newton_old = the defaults of main at 243c883 (OLD_NEWTON).
export OPENBLAS_NUM_THREADS=1
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_old rankone admm --base rankone_newton \
    --json benchmarks/results_support/support3_same_run_n30.json
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_old rankone --base rankone_newton --max-time 1800 \
    --json benchmarks/results_support/support3_same_run_n48.json
python benchmarks/support_scale.py --ns 64 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton --base rankone_newton --max-time 1800 \
    --json benchmarks/results_support/support3_same_run_n64.json
python benchmarks/support_scale.py --ns 64 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton_old --base rankone_newton_old --max-time 1200 \
    --json benchmarks/results_support/support3_same_run_n64_old.json

OPENBLAS_NUM_THREADS=1 python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone admm --base rankone_newton \
    --json benchmarks/results_support/newton_same_run.json > benchmarks/results_support/newton_same_run.txt

# issue 15, support5 session: one run, sequential, one BLAS thread (commands as run; raw output in
# support5_same_run.txt, per-tensor JSON in support5_same_run_n*.json). Code: branch support at the commit
# that added this file; rankone_newton_base = solver="rankone_newton" of main at b5438f5, run in a child
# process from an export of that commit (git archive b5438f5 | tar -x -C /tmp/sup5/base).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/sup5/base \
    --json benchmarks/results_support/support5_same_run_n30.json
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/sup5/base \
    --max-time 1200 --json benchmarks/results_support/support5_same_run_n48.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/sup5/base \
    --max-time 1200 --json benchmarks/results_support/support5_same_run_n64.json
uptime
# second n = 64 tensor, after the first run (same code, tensor index 1 of the same seed)
python benchmarks/support_scale.py --ns 64 --tensors 2 --first-tensor 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/sup5/base \
    --max-time 1200 --json benchmarks/results_support/support5_same_run_n64_t1.json
uptime

# issue 15, support4 session: one run, sequential, one BLAS thread (commands as run; raw output in
# support4_same_run.txt, per-tensor JSON in support4_same_run_n*.json). Code: branch support at the commit
# that added this file; rankone_newton_base = solver="rankone_newton" of main at e4cbbe6, run in a child
# process from an export of that commit (git archive e4cbbe6 | tar -x -C /tmp/sup/base).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/sup/base \
    --json benchmarks/results_support/support4_same_run_n30.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/sup/base \
    --max-time 1200 --json benchmarks/results_support/support4_same_run_n64.json
uptime

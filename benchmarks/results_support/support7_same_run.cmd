# issue 15, support7 session: one run, sequential, one BLAS thread (commands as run; raw output in
# support7_same_run.txt, per-tensor JSON in support7_same_run_n*.json). Code: branch support at the commit that
# added this file; rankone_newton_base = solver="rankone_newton" of main at 5778d9e, run in a child process from
# an export of that commit (git archive 5778d9e | tar -x -C /tmp/support_base). Last: the time limit, n = 64
# with a 30 s limit (new and base), to show where each stops.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/support_base \
    --json benchmarks/results_support/support7_same_run_n30.json
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/support_base \
    --max-time 1200 --json benchmarks/results_support/support7_same_run_n48.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/support_base \
    --max-time 1200 --json benchmarks/results_support/support7_same_run_n64.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/support_base \
    --max-time 30 --json benchmarks/results_support/support7_same_run_n64_limit30.json
uptime

# issue 15, support6 session: one run, sequential, one BLAS thread (commands as run; raw output in
# support6_same_run.txt, per-tensor JSON in support6_same_run_n*.json). Code: branch support2 at the commit
# that added this file; rankone_newton_base = solver="rankone_newton" of main at e1ff240, run in a child
# process from an export of that commit (git archive e1ff240 | tar -x -C /tmp/sup6/base). The peak resident
# memory of each solve (above its start) is printed with the estimate.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 30 --tensors 3 --tol 1e-7 \
    --solvers rankone_newton rankone_newton_base admm --base rankone_newton --base-src /tmp/sup6/base \
    --json benchmarks/results_support/support6_same_run_n30.json
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/sup6/base \
    --max-time 1200 --json benchmarks/results_support/support6_same_run_n48.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/sup6/base \
    --max-time 1200 --json benchmarks/results_support/support6_same_run_n64.json
uptime

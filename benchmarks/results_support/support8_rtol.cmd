# issue 15, support8 session, FIRST run (dr_rtol_factor 0.25 only, commit bd09cc5; as run, the files then named
# support8_same_run.*, renamed support8_rtol.*): one run, sequential, one BLAS thread; raw output support8_rtol.txt,
# per-tensor JSON support8_rtol_n*.json (the --json paths below name the renamed files). rankone_newton_base = solver="rankone_newton" of main
# at 66aacce, run in a child process from an export of that commit (git archive 66aacce | tar -x -C /tmp/s3/base).
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
uptime
python benchmarks/support_scale.py --ns 48 --tensors 1 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/s3/base \
    --max-time 1200 --json benchmarks/results_support/support8_rtol_n48.json
uptime
python benchmarks/support_scale.py --ns 64 --tensors 2 --tol 1e-6 \
    --solvers rankone_newton rankone_newton_base --base rankone_newton --base-src /tmp/s3/base \
    --max-time 1200 --json benchmarks/results_support/support8_rtol_n64.json
uptime

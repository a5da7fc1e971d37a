#!/bin/sh
# The proj6 dual-method sweeps at n = 12, 20 (dp), same run as the ADMM / lowrank baselines.
# From the worktree root:
#   PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 sh benchmarks/results_sdp/proj6/experiments/sweep_small.sh \
#       > benchmarks/results_sdp/proj6/experiments/sweep_small.txt 2>&1
E=benchmarks/results_sdp/proj6/experiments
uptime
for n in 12 20; do
  python $E/iters.py $n dp admm
  python $E/iters.py $n dp lowrank
done
echo "# L-BFGS (scipy, unpreconditioned): TAU TAU_S INNER MAX_EVALS"
for cfg in "10 0.1 30 1500" "1e3 1 50 2000" "1e3 1e3 100 2000" "1e4 1e4 100 2000"; do
  python $E/dual_lbfgs.py 12 dp $cfg | tail -1
done
echo "# preconditioned L-BFGS: TAU TAU_S INNER MEMORY KEEP MAX_EVALS [GROW TAU_S_MAX]"
for n in 12 20; do
  for ts in 1 3 10 30 100; do
    for inn in 2 5 10; do
      python $E/dual_plbfgs.py $n dp 1e3 $ts $inn 10 1 800 | tail -1
    done
  done
done
python $E/dual_plbfgs.py 20 dp 1e3 1 5 10 1 800 1.5 100 | tail -1
python $E/dual_plbfgs.py 20 dp 1e2 3 5 10 1 800 | tail -1
python $E/dual_plbfgs.py 20 dp 1e4 3 5 10 1 800 | tail -1
echo "# semismooth Newton-CG on the dual: TAU_S INNER CGMAX ETA MAX_EVALS"
for cfg in "3 3 50" "10 3 50" "30 3 100" "10 1 100"; do
  python $E/dual_newton.py 20 dp $cfg 0.1 400 | tail -1
done
echo "# hybrids: lowrank to WARM_TOL, then the dual method"
for w in 1e-3 1e-4; do
  for ts in 1 3 10; do
    WARM_TOL=$w python $E/dual_plbfgs.py 20 dp 1e3 $ts 5 10 1 800 | sed -n '1p;$p'
  done
  WARM_TOL=$w python $E/dual_newton.py 20 dp 3 3 50 0.1 400 0 | sed -n '1p;$p'
done
uptime

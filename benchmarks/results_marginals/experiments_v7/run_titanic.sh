#!/bin/bash
# Issue 14 lnnfast: every prototype of this folder on the saved titanic measurement (epsilon 1, seed 0).
# python benchmarks/results_marginals/experiments_v6/dump_measurement.py titanic 1 0   (writes /tmp/meas_titanic_1.0_0.npz)
set -e
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/experiments_v7
F=/tmp/meas_titanic_1.0_0.npz
uptime
python $D/dual_fista.py $F admm 5000
python $D/dual_fista.py $F fista 1000 1e-3 jac
python $D/ssnal.py $F 8 1e-3 10 3
python $D/fast_admm.py $F 2000 1e-3 1 0.999 1.0 | tail -3
python $D/fast_admm.py $F 2000 1e-3 1 0.999 1.6 | tail -3
for pw in 0 0.5 1; do echo "per-table rho, power $pw"; python $D/table_rho_admm.py $F 3000 1e-3 1 $pw | tail -2; done
python $D/multilevel.py $F 3000
python $D/averaging.py $F 3000
python $D/admm_gap_trace.py $F 100 16
uptime

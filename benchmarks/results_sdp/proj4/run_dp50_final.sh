#!/bin/sh
# dp n = 50 again on the final code (after run_extra.sh; the first dp n = 50 run in run_final.sh was
# commit e482a1e, before the upper-triangle fill), admm vs lowrank vs base/lowrank (e4cbbe6), one run each.
set -x
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_sdp/proj4
git log -1 --format=%H
uptime
python benchmarks/moment_projection.py --regime dp --system unit_ball --n 50 \
    --solvers admm lowrank base/lowrank --baseline-tree /tmp/sosproj_e4cbbe6 \
    --timeout 2400 --json $OUT/dp50_final.json
uptime

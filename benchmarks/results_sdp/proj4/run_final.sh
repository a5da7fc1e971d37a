#!/bin/sh
# Projection benchmark of branch proj (issue 15, session proj4), one BLAS thread, from the worktree root:
#   git archive e4cbbe6 sosproj | tar -x -C /tmp/sosproj_e4cbbe6      (the baseline tree)
#   PYTHONPATH=$PWD sh benchmarks/results_sdp/proj4/run_final.sh
# admm and lowrank run this branch's code, base/lowrank the lowrank backend as of e4cbbe6, in the same run.
set -x
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_sdp/proj4
git log -1 --format=%H
uptime
python benchmarks/moment_projection.py --regime boundary --system unit_ball --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree /tmp/sosproj_e4cbbe6 \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/boundary30.json
uptime
python benchmarks/moment_projection.py --regime dp --system unit_ball --n 50 \
    --solvers admm lowrank base/lowrank --baseline-tree /tmp/sosproj_e4cbbe6 \
    --timeout 3000 --json $OUT/dp50.json
uptime

#!/bin/sh
# After run_final.sh, on the final code (the side projector fills the upper triangle only): boundary n = 30
# again, then dp n = 30 and the Boolean cube n = 30, three repetitions each, admm vs lowrank vs
# base/lowrank (e4cbbe6), for the target and the routing of solver="auto" (order >= 400 -> lowrank).
set -x
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_sdp/proj4
git log -1 --format=%H
uptime
python benchmarks/moment_projection.py --regime boundary --system unit_ball --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree /tmp/sosproj_e4cbbe6 \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/boundary30_final.json
uptime
python benchmarks/moment_projection.py --regime dp --system unit_ball --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree /tmp/sosproj_e4cbbe6 \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/dp30.json
uptime
python benchmarks/moment_projection.py --regime dp --system boolean_cube --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree /tmp/sosproj_e4cbbe6 \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/cube30.json
uptime

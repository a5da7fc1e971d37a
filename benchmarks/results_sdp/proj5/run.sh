#!/bin/sh
# proj5 (issue 15): admm vs lowrank (this branch: inverse iteration for small-cluster sides) vs
# base/lowrank (lowrank as of b5438f5, from `git archive b5438f5 sosproj | tar -x -C /tmp/sosproj_b5438f5`),
# same run, one BLAS thread: boundary n = 30, dp n = 30, cube n = 30 (3 repetitions each), then dp n = 50 (one each).
set -x
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
OUT=benchmarks/results_sdp/proj5
BASE=/tmp/sosproj_b5438f5
git log -1 --format=%H
git status --short sosproj
uptime
python benchmarks/moment_projection.py --regime boundary --system unit_ball --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree $BASE \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/boundary30.json
uptime
python benchmarks/moment_projection.py --regime dp --system unit_ball --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree $BASE \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/dp30.json
uptime
python benchmarks/moment_projection.py --regime dp --system boolean_cube --n 30 \
    --solvers admm lowrank base/lowrank --baseline-tree $BASE \
    --repeat 3 --repeat-max-n 30 --timeout 1200 --json $OUT/cube30.json
uptime
python benchmarks/moment_projection.py --regime dp --system unit_ball --n 50 \
    --solvers admm lowrank base/lowrank --baseline-tree $BASE \
    --timeout 2400 --json $OUT/dp50.json
uptime

#!/bin/sh
# Projection benchmark of branch proj3 (commit 1b41853, run from a snapshot of that commit), one BLAS thread.
# n = 50 dp once, then boundary n = 30 three times; admm vs lowrank in the same run.
set -x
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
uptime
python benchmarks/moment_projection.py --regime dp --system unit_ball --n 50 --solvers admm lowrank \
    --timeout 3000 --json dp50.json
uptime
python benchmarks/moment_projection.py --regime boundary --system unit_ball --n 30 --solvers admm lowrank \
    'lowrank:{"rho_factor": 1, "anderson": 10}' --repeat 3 --repeat-max-n 30 --timeout 1200 --json boundary30.json
uptime

# Added after the run above (commit 3638e73, worktree, same settings): dp n = 30, three repetitions,
# admm vs lowrank vs auto (which routes order 496 to lowrank); output dp30_output.txt, dp30.json.
# python benchmarks/moment_projection.py --regime dp --system unit_ball --n 30 --solvers admm lowrank auto \
#     --repeat 3 --repeat-max-n 30 --timeout 1200 --json benchmarks/results_sdp/proj3/dp30.json

# Rerun of boundary n = 30 on the final code (commit 03f3068, worktree): output boundary30_final_output.txt
# python benchmarks/moment_projection.py --regime boundary --system unit_ball --n 30 --solvers admm lowrank \
#     --repeat 3 --repeat-max-n 30 --timeout 1200 --json benchmarks/results_sdp/proj3/boundary30_final.json

# Rerun of dp n = 50 on the final code (commit dfbf9a9, worktree): output dp50_final_output.txt
# python benchmarks/moment_projection.py --regime dp --system unit_ball --n 50 --solvers admm lowrank \
#     --timeout 3000 --json benchmarks/results_sdp/proj3/dp50_final.json

# Boolean cube dp n = 30 on the final code (worktree, 18:13 UTC): output cube30_output.txt
# python benchmarks/moment_projection.py --regime dp --system boolean_cube --n 30 --solvers admm lowrank \
#     --repeat 3 --repeat-max-n 30 --timeout 600 --json benchmarks/results_sdp/proj3/cube30.json

# Last rerun on the final code (commit 877feee: Anderson history through views, both solvers faster),
# dp n = 50 then boundary n = 30 x3: outputs dp50_last_output.txt, boundary30_last_output.txt
# python benchmarks/moment_projection.py --regime dp --system unit_ball --n 50 --solvers admm lowrank --timeout 3000 \
#     --json benchmarks/results_sdp/proj3/dp50_last.json
# python benchmarks/moment_projection.py --regime boundary --system unit_ball --n 30 --solvers admm lowrank \
#     --repeat 3 --repeat-max-n 30 --timeout 1200 --json benchmarks/results_sdp/proj3/boundary30_last.json

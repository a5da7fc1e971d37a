#!/bin/bash
# planted32 default rows on main 72e9960 (session 34, lead): the v5 default rows predate the binary pipeline's
# later changes (the cube step's Anderson acceleration, cumulant start and certificate stop, v8-v11 on nltcs), so
# they no longer describe the default. Same harness and seeds as v5 (0-4 at every epsilon), one BLAS thread.
# Usage: bash benchmarks/results_peers/v18_planted32.sh > benchmarks/results_peers/v18_planted32.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets planted32 --epsilons 1 0.03 0.1 0.3 3 10 --methods sosproj \
    --trace-seed -1 --out benchmarks/results_peers/v18_planted32.jsonl
# the traced row (peak_mib) of epsilon 1 seed 0, as in v5: that row was removed from the file and re-run with tracing
# (the harness skips the keys it holds; log v18_planted32_traced.log)
python benchmarks/marginals_peers.py --datasets planted32 --epsilons 1 --seeds 0 --methods sosproj \
    --trace-eps 1 --out benchmarks/results_peers/v18_planted32.jsonl
uptime

#!/bin/bash
# nltcs default rows on main 6edb343 (session 36, lead): the binary default now projects onto the EXACT marginal
# polytope up to 16 attributes (reconstruction "auto" -> "joint"); same measurement as v18 (same seeds, same normals),
# so the v19 / v18 ratios per seed are paired. Every seed the report holds: 0-99 at 0.03 / 0.1, 0-4 elsewhere.
# One BLAS thread. Usage: bash benchmarks/results_peers/v19_nltcs.sh > benchmarks/results_peers/v19_nltcs.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --epsilons 0.3 1 3 10 \
    --seeds 0 1 2 3 4 --out benchmarks/results_peers/v19_nltcs.jsonl
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --epsilons 0.03 0.1 \
    --seeds $(seq 0 99) --out benchmarks/results_peers/v19_nltcs.jsonl
uptime

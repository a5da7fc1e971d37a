#!/bin/bash
# nltcs default rows on branch mix37 (session 37, helper mix37): the binary measurement re-fitted for the EXACT
# marginal polytope (AUTO_MIX_JOINT, mix_rule "joint"); same standard normals as v19 (same seeds), new noise scales,
# so the v20 / v19 ratios per seed are paired. Every seed the report holds: 0-99 at 0.03 / 0.1, 0-4 elsewhere.
# One BLAS thread. Usage: bash benchmarks/results_peers/v20_nltcs.sh > benchmarks/results_peers/v20_nltcs.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --epsilons 0.3 1 3 10 \
    --seeds 0 1 2 3 4 --out benchmarks/results_peers/v20_nltcs.jsonl
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --epsilons 0.03 0.1 \
    --seeds $(seq 0 99) --out benchmarks/results_peers/v20_nltcs.jsonl
uptime

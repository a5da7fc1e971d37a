#!/bin/bash
# nltcs default rows on main 72e9960 (session 34, lead): the v5 rows of seeds 5-99 at epsilon 0.03 / 0.1 were
# written by an older default (v5, before the cube step's Anderson acceleration, certificate stop and later rules);
# report.py let them stand beside the v11 rows of seeds 0-4, so the 100-seed cells mixed two defaults.
# This re-runs the current default at every seed the report holds: 0-99 at 0.03 / 0.1, 0-4 elsewhere.
# One BLAS thread. Usage: bash benchmarks/results_peers/v18_nltcs.sh > benchmarks/results_peers/v18_nltcs.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --epsilons 0.03 0.1 \
    --seeds $(seq 0 99) --out benchmarks/results_peers/v18_nltcs.jsonl
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --epsilons 0.3 1 3 10 \
    --seeds 0 1 2 3 4 --out benchmarks/results_peers/v18_nltcs.jsonl
uptime

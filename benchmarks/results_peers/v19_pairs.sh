#!/bin/bash
# The opt-in private pair selection (selection="pairs", merged from branch adult36, session 36) on adult and titanic at
# the AIM cells' epsilons, seeds 0-4 (the default's seeds: same measurement normals where the step keeps the rule's
# sets), main 622c757 + report changes (lead, session 36). Rows 'sosproj_pairs'; the report shows them against AIM as
# information (not the default). One BLAS thread.
# Usage: bash benchmarks/results_peers/v19_pairs.sh > benchmarks/results_peers/v19_pairs.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets adult titanic --methods sosproj_pairs --epsilons 0.3 1 3 \
    --seeds 0 1 2 3 4 --out benchmarks/results_peers/v19_pairs.jsonl
uptime

#!/bin/bash
# The default and the opt-in pair selection under add/remove adjacency, AIM's and MST's own (session 38, lead): the
# comparison with AIM / MST at the same guarantee (issue 14: "with the same privacy parameters and adjacency").
# `public_m=m` (the declared size; the peers' runner passes rows=m). nltcs / titanic / adult at the AIM cells'
# epsilons, seeds 0-4. Code: main 5eeea8e's sosproj (frozen snapshot /tmp/lead38_main, `git archive 5eeea8e sosproj`).
# Usage: bash benchmarks/results_peers/v21_ar.sh > benchmarks/results_peers/v21_ar.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=/tmp/lead38_main:$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs titanic adult --methods sosproj_ar sosproj_pairs_ar \
    --epsilons 0.3 1 3 --seeds 0 1 2 3 4 --out benchmarks/results_peers/v21_ar.jsonl
uptime

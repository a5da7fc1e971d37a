#!/bin/bash
# Session 39 (lead): the opt-in pair selection as it now ships (tree prior by default in that mode, 3-way bar 48:
# SELECT_PAIRS_EXTRAPOLATION, SELECT_PAIRS_SKIP_SNR), on adult and titanic at the AIM cells' epsilons, seeds 0-4:
# replace-one ('sosproj_pairs'), add/remove ('sosproj_pairs_ar') and the explicit tree prior under add/remove
# ('sosproj_pairs_tree_ar', the same release now). Code: main e8bcf47's sosproj (frozen snapshot /tmp/lead39_main,
# `git archive e8bcf47 sosproj`).
# Usage: bash benchmarks/results_peers/v22_pairs.sh > benchmarks/results_peers/v22_pairs.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=/tmp/lead39_main:$PWD
uptime
python -c "import sosproj.mechanisms.marginals_pipeline as mp; print(mp.__file__, mp.SELECT_PAIRS_SKIP_SNR)"
python benchmarks/marginals_peers.py --datasets adult titanic \
    --methods sosproj_pairs sosproj_pairs_ar sosproj_pairs_tree_ar \
    --epsilons 0.3 1 3 --seeds 0 1 2 3 4 --out benchmarks/results_peers/v22_pairs.jsonl
uptime

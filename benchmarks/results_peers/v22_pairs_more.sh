#!/bin/bash
# Session 39 (lead): seeds 5-19 of the selection mode as it now ships under add/remove ('sosproj_pairs_ar', the AIM
# comparison's setting) on adult and titanic, decided before any of these rows was read, for every cell alike (as
# v21_ar_more did for the default). Code: main e8bcf47's sosproj (frozen snapshot /tmp/lead39_main).
# Usage: bash benchmarks/results_peers/v22_pairs_more.sh > benchmarks/results_peers/v22_pairs_more.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=/tmp/lead39_main:$PWD
uptime
python benchmarks/marginals_peers.py --datasets adult titanic --methods sosproj_pairs_ar \
    --epsilons 0.3 1 3 --seeds 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 \
    --out benchmarks/results_peers/v22_pairs_more.jsonl
uptime

#!/bin/bash
# Session 38 (lead): the opt-in pair selection with the tree prior of the extrapolation (merged from branch tree38 as
# an opt-in, `project_options={"extrapolation": "tree"}`), under add/remove (AIM's adjacency), on adult and titanic at
# the AIM cells' epsilons, seeds 0-4 (rows 'sosproj_pairs_tree_ar'). Code: main 4adcb9c's sosproj (frozen snapshot
# /tmp/lead38b_main, `git archive 4adcb9c sosproj`).
# Usage: bash benchmarks/results_peers/v21_tree.sh > benchmarks/results_peers/v21_tree.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=/tmp/lead38b_main:$PWD
uptime
python benchmarks/marginals_peers.py --datasets adult titanic --methods sosproj_pairs_tree_ar \
    --epsilons 0.3 1 3 --seeds 0 1 2 3 4 --out benchmarks/results_peers/v21_tree.jsonl
uptime

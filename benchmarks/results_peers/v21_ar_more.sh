#!/bin/bash
# Session 38 (lead): seeds 5-19 of the default under add/remove (rows 'sosproj_ar', as v21_ar.sh), for every AIM cell
# (nltcs / titanic / adult at 0.3, 1, 3) alike: 20 seeds per cell on the side of the comparison that is cheap to run.
# Code: main 5eeea8e's sosproj (frozen snapshot /tmp/lead38_main).
# Usage: bash benchmarks/results_peers/v21_ar_more.sh > benchmarks/results_peers/v21_ar_more.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=/tmp/lead38_main:$PWD
uptime
python benchmarks/marginals_peers.py --datasets titanic nltcs adult --methods sosproj_ar \
    --epsilons 0.3 1 3 --seeds $(seq 5 19) --out benchmarks/results_peers/v21_ar_more.jsonl
uptime

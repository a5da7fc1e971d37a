#!/bin/bash
# adult after epsilon 1, seed 0 (v4_adult.sh, stopped at 12:16 for the CPU share: ~0.2 core per process at
# load 11): the lowest epsilon first (where the one-hot rule moved), then the others, seed 0 only
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
python benchmarks/marginals_peers.py --datasets adult --epsilons 0.03 0.3 3 0.1 10 --seeds 0 \
    --methods rp rp_trunc grem_lnn sosproj --lnn-max-iter 150 --trace-seed -1 \
    --out benchmarks/results_peers/v4_adult.jsonl

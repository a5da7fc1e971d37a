#!/bin/bash
# issue 14, nltcs epsilon 0.03 / 0.1: seeds 15-99 (100 seeds in all, fixed before the run) of the default, equal
# tables+cube and the post-processing peers; seeds 15-59 were started first (same command, --seeds 15..59)
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
python benchmarks/marginals_peers.py --datasets nltcs --epsilons 0.03 0.1 --seeds $(seq 15 99) \
    --methods sosproj tables rp rp_trunc grem_lnn --lnn-max-iter 1000 --trace-seed -1 \
    --out benchmarks/results_peers/v5_nltcs.jsonl

#!/bin/bash
# issue 14, planted64 (n = 64, m = 20,000, planted_binary 4 clusters, data seed 0; all 41,664 3-way marginals).
# Default + post-processing peers (GReM-LNN capped at 150 ADMM iterations, as on adult), seeds 0-1 over every
# epsilon first, then seeds 2-4.  No tracemalloc rerun (several times slower at this size): the rows carry
# peak_rss_mib (RSS high-water mark over each release).  Equal tables+cube (about 150-300 s CPU per release at
# n = 64, docs/bench_tables.md) is run afterwards, where the compute allows (v5_planted64_tables.sh).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
OUT=benchmarks/results_peers/v5_planted64.jsonl
python benchmarks/marginals_peers.py --datasets planted64 --epsilons 1 0.03 0.1 0.3 3 10 --seeds 0 1 \
    --methods sosproj rp rp_trunc grem_lnn --lnn-max-iter 150 --trace-seed -1 --out $OUT
# 15:10: seeds 2-4 reordered to the close cells first (epsilon 0.1, 3, 10), as the compute left allows
python benchmarks/marginals_peers.py --datasets planted64 --epsilons 0.1 3 10 0.3 1 0.03 --seeds 2 3 4 \
    --methods sosproj rp rp_trunc grem_lnn --lnn-max-iter 150 --trace-seed -1 --out $OUT

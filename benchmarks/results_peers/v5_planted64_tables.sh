#!/bin/bash
# issue 14, planted64, started when the planted32 grid ended (2 processes at most).
# 1. Diagnostic of the default's misses at n = 64 (epsilon 0.3 and 1): sosproj alloc=rp (the default's
#    reconstruction, which is LNN at n = 64, on ResidualPlanner's allocation) separates the allocation from
#    the reconstruction.
# 2. Equal tables+cube (release_tables with its defaults: degree 4, ADMM tol 1e-4, max_iter 5000; the peer
#    unchanged), seed 0, as the compute allows, the low-SNR end first (where equal tables was the best peer on
#    planted32).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
python benchmarks/marginals_peers.py --datasets planted64 --epsilons 0.3 1 --seeds 0 --methods sosproj_rp \
    --trace-seed -1 --out benchmarks/results_peers/v5_planted64_variants.jsonl
for e in 0.03 1 0.1 0.3 3 10; do
    python benchmarks/marginals_peers.py --datasets planted64 --epsilons $e --seeds 0 --methods tables \
        --trace-seed -1 --out benchmarks/results_peers/v5_planted64_tables.jsonl
done

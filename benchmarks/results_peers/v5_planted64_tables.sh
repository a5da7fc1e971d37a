#!/bin/bash
# issue 14, planted64: equal tables+cube (release_tables with its defaults: degree 4, ADMM tol 1e-4, max_iter
# 5000; the peer unchanged), one seed per cell as the compute allows, the low-SNR end first (where equal tables
# was the best peer on planted32), then epsilon 1.  Started when the planted32 grid ended (2 processes at most).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
for e in 0.03 1 0.1 0.3 3 10; do
    python benchmarks/marginals_peers.py --datasets planted64 --epsilons $e --seeds 0 --methods tables \
        --trace-seed -1 --out benchmarks/results_peers/v5_planted64_tables.jsonl
done

#!/bin/bash
# adult, one seed at a time over all epsilons (as many seeds as finish); GReM-LNN capped at 150 ADMM iterations
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
for s in 0 1 2 3 4; do
  python benchmarks/marginals_peers.py --datasets adult --epsilons 1 0.3 3 0.1 10 0.03 --seeds $s \
      --methods rp rp_trunc grem_lnn sosproj --lnn-max-iter 150 --trace-seed -1 \
      --out benchmarks/results_peers/v4_adult.jsonl
done

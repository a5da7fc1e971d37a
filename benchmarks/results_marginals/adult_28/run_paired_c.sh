#!/usr/bin/env bash
# Paired accuracy / CPU of the final default (fused normal map, no primal average; NEW_SRC snapshot) against main
# d75fdf8 (BASE_SRC), one stream beside run_mst.sh (load 8-10): adult seeds 0-1 at every epsilon, then more seeds.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/adult_28
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 3 0.3 0.03 10 0.1 --seeds 0 1 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 3 0.3 0.03 10 0.1 --seeds 2 3 4 \
    --new-src "${NEW_SRC:?}" --base-src "${BASE_SRC:?}" --out $D/paired.jsonl
uptime

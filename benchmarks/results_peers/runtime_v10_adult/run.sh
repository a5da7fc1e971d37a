#!/usr/bin/env bash
# Same-run timing on adult (branch adult, issue 14): NEW = snapshot of bd18599 (`git archive bd18599 | tar -x -C
# /tmp/adult_new`: the extrapolation's IPF stops when its margin gap stalls), MST, and OLD = main at 5778d9e
# (`git archive 5778d9e | tar -x -C /tmp/adult_base`), interleaved per cell (sosproj, MST, base), epsilon 1 / 0.3 / 3,
# seed 0 (3 MST runs), one BLAS thread; then the scale row of NEW (adult all 3-way, eps 1: wall / CPU / peak memory).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v10_adult
uptime
PYTHONPATH=$PWD python benchmarks/runtime_vs_pgm.py --label "bd18599" --sosproj-src /tmp/adult_new \
    --baseline-src /tmp/adult_base --out $R/rows.jsonl --sosproj-repeats 1 \
    --cells mst:adult:1:0 mst:adult:0.3:0 mst:adult:3:0
uptime
PYTHONPATH=$PWD python benchmarks/runtime_vs_pgm.py --summary $R/rows.jsonl > $R/summary.txt
PYTHONPATH=/tmp/adult_new python /tmp/adult_new/benchmarks/marginals_scale.py --cases adult --repeats 1 --eps 1 \
    --out benchmarks/results_marginals/adult_v10/scale.jsonl > benchmarks/results_marginals/adult_v10/scale.txt
uptime

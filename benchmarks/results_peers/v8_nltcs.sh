#!/bin/bash
# nltcs default rows on branch runtime (cube step: one-sided PSD projection, same iterates as b5438f5): the
# command of the v4 nltcs default rows (v4_nltcs2.sh), 5 seeds x 6 epsilons, one BLAS thread
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --trace-eps 1 \
    --out benchmarks/results_peers/v8_nltcs.jsonl
uptime

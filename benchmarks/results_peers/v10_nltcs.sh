#!/bin/bash
# nltcs default rows on branch cube (issue 14: cumulant start, CUBE_GAP_TOL 0.05, inverse-iteration eigenvectors in
# the cube step): the command of the v8 nltcs default rows (v8_nltcs.sh), 5 seeds x 6 epsilons, one BLAS thread
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --trace-eps 1 \
    --out benchmarks/results_peers/v10_nltcs.jsonl
uptime

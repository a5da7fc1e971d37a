#!/bin/bash
# nltcs default rows on main after the nltcs and lnnb branches (issue 14: Anderson-accelerated cube step, LNN step on its dual)
# (the command of the v8 nltcs default rows, v8_nltcs.sh), 5 seeds x 6 epsilons, one BLAS thread
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --trace-eps 1 \
    --out benchmarks/results_peers/v11_nltcs.jsonl
uptime

#!/bin/bash
# nltcs sosproj rows on the final pipeline (solver tolerance min(1e-3, 0.005/snr)), after the titanic default
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
while pgrep -f "datasets titanic --methods sosproj" > /dev/null; do sleep 5; done
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj --trace-eps 1 \
    --out benchmarks/results_peers/v4_nltcs_sosproj.jsonl
python benchmarks/marginals_peers.py --datasets nltcs --epsilons 10 3 1 0.3 0.1 0.03 --methods sosproj_rp sosproj_lnn \
    --trace-seed -1 --out benchmarks/results_peers/v4_nltcs_sosproj.jsonl
# extra seeds where the best peer is equal tables + cube (its own noise draw: only seeds tighten the interval)
python benchmarks/marginals_peers.py --datasets nltcs --epsilons 0.03 0.1 --seeds 5 6 7 8 9 10 11 12 13 14 \
    --methods sosproj tables --trace-seed -1 --out benchmarks/results_peers/v4_nltcs_sosproj.jsonl

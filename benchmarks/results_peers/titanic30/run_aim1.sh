#!/usr/bin/env bash
# One AIM draw on titanic at epsilon 1 with its synthetic data kept, for a diagnosis of the epsilon-1 cell (the
# next lever; evaluation only). Branch snapshot /tmp/titanic30_new (the default with the selection).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/titanic30
uptime
python benchmarks/runtime_vs_pgm.py --label "${LABEL:-titanic30}" --sosproj-src /tmp/titanic30_new \
    --out $R/rows_aim1.jsonl --keep-synth $R/synth --cells aim:titanic:1:0
uptime

#!/bin/bash
# The variants' rows (selection="one-way", allocation="rp", reconstruction="lnn") on the current pipeline (session 34,
# lead): their v4 / v5 / v14 rows predate later rules (the 1-way bar and shrinkage, the 2-3-way shrinkage, the
# 3-way bar, the cube step's changes), so the paired columns compared today's default with older variants.
# Same harness and seeds as before; one BLAS thread.
# Usage: bash benchmarks/results_peers/v18_variants.sh > benchmarks/results_peers/v18_variants.log 2>&1
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD
uptime
python benchmarks/marginals_peers.py --datasets titanic --methods sosproj_sel sosproj_rp sosproj_lnn \
    --trace-seed -1 --out benchmarks/results_peers/v18_titanic_variants.jsonl
python benchmarks/marginals_peers.py --datasets nltcs --methods sosproj_rp sosproj_lnn \
    --trace-seed -1 --out benchmarks/results_peers/v18_nltcs_variants.jsonl
python benchmarks/marginals_peers.py --datasets planted32 --epsilons 1 --seeds 0 1 --methods sosproj_rp sosproj_lnn \
    --trace-seed -1 --out benchmarks/results_peers/v18_planted32_variants.jsonl
uptime

#!/usr/bin/env bash
# Two more same-run AIM cells on titanic at epsilon 1 (seeds 1 and 2 for sosproj; AIM's noise is not seeded), merged
# main at cacf7b3 (snapshot `git archive cacf7b3 | tar -x -C /tmp/snap9`); the earlier single cell is
# runtime_v8/rows.jsonl (seed 0). Lead, 2026-11-27.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v9_aim
uptime
python benchmarks/runtime_vs_pgm.py --label "cacf7b3" --sosproj-src /tmp/snap9 --out $R/rows.jsonl \
    --cells aim:titanic:1:1 aim:titanic:1:2
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows.jsonl > $R/summary.txt

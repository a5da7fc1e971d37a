#!/usr/bin/env bash
# More AIM draws on titanic at epsilon 0.3 (AIM's noise is not seeded: each run an independent draw), the lead's
# harness and AIM settings unchanged (benchmarks/results_peers/runtime_v29_aim/run.sh), sosproj = main ba2adb9
# (snapshot `git archive ba2adb9 sosproj | tar -x -C /tmp/titanic30_base`); AIM's synthetic data kept for the
# diagnosis (synth/). Session 30, branch titanic30.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/titanic30
uptime
python benchmarks/runtime_vs_pgm.py --label "ba2adb9" --sosproj-src /tmp/titanic30_base --out $R/rows_aim.jsonl \
    --keep-synth $R/synth --cells aim:titanic:0.3:3 aim:titanic:0.3:4 aim:titanic:0.3:5 aim:titanic:0.3:6
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows_aim.jsonl > $R/summary_aim.txt

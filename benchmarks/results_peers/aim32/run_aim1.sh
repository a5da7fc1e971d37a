#!/usr/bin/env bash
# Session 32 (lead): more AIM draws on titanic at epsilon 1, same run as main's default (snapshot of 640b3a4:
# `git archive 640b3a4 sosproj | tar -x -C /tmp/lead32_main`), to narrow the interval of the ratio default / AIM
# (8 AIM runs before this: 0.958x [0.888, 1.028]). AIM's noise is not seeded: every run is an independent draw;
# the seed sets sosproj's noise. One BLAS thread. Run from the repository root:
#   nohup bash benchmarks/results_peers/aim32/run_aim1.sh > benchmarks/results_peers/aim32/run_aim1.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/aim32
SRC=${SOSPROJ_SRC:-/tmp/lead32_main}
uptime
for s in $(seq ${FIRST:-5} ${LAST:-20}); do
  python benchmarks/runtime_vs_pgm.py --label "${LABEL:-main-640b3a4}" --sosproj-src "$SRC" --out $R/rows_aim1.jsonl \
      --cells aim:titanic:1:$s
  uptime
done
python benchmarks/runtime_vs_pgm.py --summary $R/rows_aim1.jsonl > $R/summary_aim1.txt

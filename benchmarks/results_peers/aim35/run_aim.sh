#!/usr/bin/env bash
# Session 35 (lead): the AIM cells of issue 14 that were cut off under load or never run. aim:nltcs:1 was cut off at
# 3,600 s wall in session 26 at load average ~30 (the issue measured AIM there in 31 minutes on one core); nltcs 0.3 / 3
# were never run. Each AIM run gets a 2-hour WALL cut-off here (its own fit+sample CPU time is recorded, so a run
# that finishes is scored whatever the load beside it), same run as main's default (snapshot of a4a5c3f:
# `git archive a4a5c3f sosproj | tar -x -C /tmp/lead35_main`). AIM's noise is not seeded (each run is a draw; the
# seed sets sosproj's noise). One BLAS thread. Run from the repository root:
#   nohup bash benchmarks/results_peers/aim35/run_aim.sh > benchmarks/results_peers/aim35/run_aim.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/aim35
SRC=${SOSPROJ_SRC:-/tmp/lead35_main}
uptime
for cell in ${CELLS:-aim:nltcs:1:0 aim:nltcs:0.3:0 aim:nltcs:3:0}; do
  python benchmarks/runtime_vs_pgm.py --label "${LABEL:-main-a4a5c3f}" --sosproj-src "$SRC" --out $R/rows_aim.jsonl \
      --peer-timeout ${TIMEOUT:-7200} --cells $cell
  uptime
done
python benchmarks/runtime_vs_pgm.py --summary $R/rows_aim.jsonl > $R/summary_aim.txt

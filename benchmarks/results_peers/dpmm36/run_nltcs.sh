#!/usr/bin/env bash
# Session 36 (lead): AIM as the private-pgm authors wrote it (dpmm 0.1.9, /work/venv-dpmm) against main's NEW binary
# default (the exact marginal polytope on nltcs; snapshot of 6edb343 in /tmp/lead36_joint: git archive 6edb343
# sosproj | tar -x -C /tmp/lead36_joint), with the previous default (snapshot of 6ae5fd5 in /tmp/lead36_main)
# interleaved in the same cells (--baseline-src: rows 'sosproj_base', paired ratios). One-hour cut-off per peer
# run. One BLAS thread. Waits for the run_cells.sh cell in flight (its harness PID as WAIT_PID). From the repo root:
#   WAIT_PID=13170 CELLS="aim:nltcs:0.3:2 ..." nohup bash benchmarks/results_peers/dpmm36/run_nltcs.sh \
#       >> benchmarks/results_peers/dpmm36/run_nltcs.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/dpmm36
while [ -n "${WAIT_PID:-}" ] && kill -0 "$WAIT_PID" 2>/dev/null; do sleep 20; done
uptime
for cell in ${CELLS:?}; do
  python benchmarks/runtime_vs_pgm.py --label "${LABEL:-main-6edb343}" --sosproj-src /tmp/lead36_joint \
      --baseline-src /tmp/lead36_main --out $R/rows_aim_dpmm_joint.jsonl \
      --peer-impl dpmm --peer-timeout ${TIMEOUT:-3600} --keep-synth /tmp/dpmm36_synth --cells $cell
  uptime
done

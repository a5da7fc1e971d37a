#!/usr/bin/env bash
# Session 39 (lead): more AIM runs as the private-pgm authors wrote them (dpmm 0.1.9, /work/venv-dpmm), against
# main's default in the same run (snapshot of e8bcf47 in /tmp/lead39_main: git archive e8bcf47 sosproj | tar -x -C
# /tmp/lead39_main). One-hour cut-off per peer run (the issue's rule). One BLAS thread. From the repo root:
#   CELLS="aim:adult:3:0 aim:nltcs:0.3:2 ..." nohup bash benchmarks/results_peers/dpmm39/run_cells.sh \
#       >> benchmarks/results_peers/dpmm39/run_cells.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/dpmm39
SRC=${SOSPROJ_SRC:-/tmp/lead39_main}
uptime
for cell in ${CELLS:?}; do
  python benchmarks/runtime_vs_pgm.py --label "${LABEL:-main-e8bcf47}" --sosproj-src "$SRC" --out $R/rows_aim_dpmm.jsonl \
      --peer-impl dpmm --peer-timeout ${TIMEOUT:-3600} --keep-synth /tmp/dpmm39_synth --cells $cell
  uptime
done

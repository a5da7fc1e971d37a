#!/usr/bin/env bash
# Session 35 (lead): AIM as the private-pgm authors wrote it (pre-refactoring mechanisms/aim.py: FactoredInference
# warm-started across rounds), through dpmm 0.1.9 (/work/venv-dpmm: pip install dpmm==0.1.9), on nltcs (and MST on nltcs and titanic) at epsilon
# 0.3 / 1 / 3, same run as main's default (snapshot of a4a5c3f in /tmp/lead35_main; its categorical releases are
# bit-identical to the session's main). dpmm's RandomState is seeded by the seed. One BLAS thread. From the repo root:
#   nohup bash benchmarks/results_peers/dpmm35/run_nltcs.sh > benchmarks/results_peers/dpmm35/run_nltcs.log 2>&1 &
#   then, two queues at once (05:18 UTC): CELLS="aim:nltcs:3:1 aim:nltcs:0.3:2" ... >> run_nltcs.log and
#   CELLS="aim:nltcs:1:2 aim:nltcs:1:3" ... >> run_nltcs_b.log
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/dpmm35
SRC=${SOSPROJ_SRC:-/tmp/lead35_main}
uptime
for cell in ${CELLS:-mst:nltcs:1:0 aim:nltcs:0.3:0 aim:nltcs:3:0 aim:nltcs:1:1 mst:titanic:1:0 aim:nltcs:0.3:1 aim:nltcs:3:1}; do
  python benchmarks/runtime_vs_pgm.py --label "${LABEL:-main-a4a5c3f}" --sosproj-src "$SRC" --out $R/rows_aim_dpmm.jsonl \
      --peer-impl dpmm --peer-timeout ${TIMEOUT:-7200} --keep-synth /tmp/dpmm35_synth --cells $cell
  uptime
done

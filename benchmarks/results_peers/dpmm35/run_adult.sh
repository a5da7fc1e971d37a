#!/usr/bin/env bash
# Session 35 (lead): AIM as the private-pgm authors wrote it (pre-refactoring mechanisms/aim.py: FactoredInference
# warm-started across rounds), through dpmm 0.1.9 (/work/venv-dpmm: pip install dpmm==0.1.9), on adult at epsilon 1,
# then 0.3 and 3 (one-hour cut-off, the issue's rule), same run as main's default (snapshot of a4a5c3f in /tmp/lead35_main; its categorical releases are
# bit-identical to the session's main). dpmm's RandomState is seeded by the seed. One BLAS thread. From the repo root:
#   nohup bash benchmarks/results_peers/dpmm35/run_adult.sh > benchmarks/results_peers/dpmm35/run_adult.log 2>&1 &
#   then: CELLS="aim:adult:0.3:0 aim:adult:3:0" nohup bash benchmarks/results_peers/dpmm35/run_adult.sh >> benchmarks/results_peers/dpmm35/run_adult.log 2>&1 &
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/dpmm35
SRC=${SOSPROJ_SRC:-/tmp/lead35_main}
uptime
for cell in ${CELLS:-aim:adult:1:0}; do
  python benchmarks/runtime_vs_pgm.py --label "${LABEL:-main-a4a5c3f}" --sosproj-src "$SRC" --out $R/rows_aim_dpmm.jsonl \
      --peer-impl dpmm --peer-timeout ${TIMEOUT:-3600} --keep-synth /tmp/dpmm35_synth --cells $cell
  uptime
done

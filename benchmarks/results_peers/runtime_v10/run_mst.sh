#!/usr/bin/env bash
# Same-run comparison with MST on nltcs (issue 14, branch cube): this branch's default (NEW_SRC = git archive da45985
# sosproj) and main at 5778d9e (BASE_SRC), interleaved around each MST run; eps 0.3 / 1 / 3, seeds 0, 1 (6 MST runs);
# one BLAS thread in every process. MST from /work/venv-peers (smartnoise-synth 1.0.8).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v10
uptime
python benchmarks/runtime_vs_pgm.py --label ${LABEL:-da45985} --sosproj-src ${NEW_SRC:-/tmp/snap_cube10b} \
    --baseline-src ${BASE_SRC:-/tmp/cube_base} --out $R/rows_mst.jsonl --sosproj-repeats 2 \
    --cells mst:nltcs:0.3:0,1 mst:nltcs:1:0,1 mst:nltcs:3:0,1
uptime

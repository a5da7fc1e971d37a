#!/usr/bin/env bash
# Same-run timing of the default (branch adult at a712128, snapshot `git archive a712128 | tar -x -C /tmp/adv9/new2`)
# against MST on adult, epsilon 1 / 0.3 / 3, seed 0 (as runtime_v8/run_c.sh); MST from /work/venv-peers (the
# harness starts it). Then the scale row (adult all 3-way, eps 1: wall / CPU / peak memory).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v9_adult
uptime
python benchmarks/runtime_vs_pgm.py --label "a712128" --sosproj-src /tmp/adv9/new2 --out $R/rows.jsonl --sosproj-repeats 1 \
    --cells mst:adult:1:0 mst:adult:0.3:0 mst:adult:3:0
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows.jsonl > $R/summary.txt
uptime
PYTHONPATH=/tmp/adv9/new2 python /tmp/adv9/new2/benchmarks/marginals_scale.py --cases adult --repeats 1 --eps 1 \
    --out benchmarks/results_marginals/adult_v9/scale_v9.jsonl > benchmarks/results_marginals/adult_v9/scale_v9.txt
uptime

uptime
OUT=$PWD/benchmarks/results_peers/v9_titanic.jsonl bash benchmarks/results_peers/v8_titanic.sh /tmp/adv9/new2 > benchmarks/results_peers/v9_titanic.log 2>&1

#!/usr/bin/env bash
# Same-run timing of merged main (snapshot `git archive cacf7b3 | tar -x -C /tmp/snap9`: the categorical LNN on its
# dual with the Chambolle-Dossal momentum) against MST on adult, epsilon 1 / 0.3 / 3, seeds 0 and 1 (lead, after the
# merge), then the scale row (adult all 3-way, eps 1: wall / CPU / peak memory).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/runtime_v9_adult
uptime
python benchmarks/runtime_vs_pgm.py --label "cacf7b3" --sosproj-src /tmp/snap9 --out $R/rows_final.jsonl --sosproj-repeats 1 \
    --cells mst:adult:1:0 mst:adult:0.3:0 mst:adult:3:0 mst:adult:1:1
uptime
python benchmarks/runtime_vs_pgm.py --summary $R/rows_final.jsonl > $R/summary_final.txt
PYTHONPATH=/tmp/snap9 python /tmp/snap9/benchmarks/marginals_scale.py --cases adult --repeats 1 --eps 1 \
    --out benchmarks/results_marginals/adult_v9/scale_final.jsonl > benchmarks/results_marginals/adult_v9/scale_final.txt
uptime

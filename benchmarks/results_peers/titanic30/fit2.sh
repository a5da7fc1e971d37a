#!/usr/bin/env bash
# The private 1-way selection, second fit round around the first round's best (0.05:0.5:2); synthetic shapes only.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/titanic30
uptime > $R/fit2_uptime.txt
python benchmarks/select_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    --eps 0.03 0.1 0.3 1 3 --variants 0:1 0.05:0.5:2 0.03:0.5:2 0.05:0.35:2 0.05:0.5:3 0.03:0.35:2 --seeds 0 1 2 3 > $R/raw_fit2.txt
uptime >> $R/fit2_uptime.txt
python benchmarks/select_summary.py $R/raw_fit2.txt > $R/summary_fit2.txt

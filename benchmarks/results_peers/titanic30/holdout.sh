#!/usr/bin/env bash
# The private 1-way selection: held-out synthetic shapes (the fit's best 0.03:0.35:2 and runner-up 0.05:0.5:2),
# then the single evaluation run on titanic / adult (the chosen variant only) and more MST draws on titanic at 0.3.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/titanic30
uptime > $R/holdout_uptime.txt
python benchmarks/select_study.py --shapes tit6-skew-m1k cat10-m300 cat8x5-m500 cat6-wide-m2k tit6-geo-m1k cat6-geo-m2k \
    cat10-geo-m300 --eps 0.03 0.1 0.3 1 3 --variants 0:1 0.03:0.35:2 0.05:0.5:2 --seeds 0 1 2 3 > $R/raw_holdout.txt
python benchmarks/select_study.py --shapes adl7-m10k adl7-geo-m10k cat8-m30k --eps 0.03 0.3 3 \
    --variants 0:1 0.03:0.35:2 0.05:0.5:2 --seeds 1 2 | tail -n +2 >> $R/raw_holdout.txt
uptime >> $R/holdout_uptime.txt
python benchmarks/select_summary.py $R/raw_holdout.txt > $R/summary_holdout.txt

#!/usr/bin/env bash
# The private 1-way selection: fit on synthetic shapes only (session 30, branch titanic30).
# raw_fit_v1_nomargin.txt: the first (interrupted) run, bar kappa * E_i without the margin (variants SHARE:KAPPA).
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_peers/titanic30
uptime > $R/fit_uptime.txt
python benchmarks/select_study.py --shapes tit9-m1k tit9-skew-m1k cat9-wide-m1k tit9-geo-m1k cat9-geo-m1k tit9-geo2-m1k \
    --eps 0.03 0.1 0.3 1 3 --variants 0:1 0.05:1:1 0.05:0.75:1 0.05:0.75:2 0.05:0.5:2 0.1:0.5:2 --seeds 0 1 2 3 > $R/raw_fit.txt
uptime >> $R/fit_uptime.txt
python benchmarks/select_summary.py $R/raw_fit.txt > $R/summary_fit.txt

#!/bin/bash
# Fresh held-out set G (stein_higher.SET_G, committed before any set-G row): inf,inf with c = 0.25 for the sets of
# order >= 2 (RESIDUAL_SHRINK) against main, paired, epsilon 0.1-3 and 10, seeds 0-4. -> raw_G.txt, summary_G.txt, ci_G.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein32
G=$(python -c "import sys; sys.path[:0] = ['$R', 'benchmarks', 'benchmarks/results_catrule/stein31']
import stein_higher as s; print(' '.join('G:' + k for k in s.SET_G))")
uptime > $R/G_uptime.txt
python $R/stein_higher.py --shapes $G --eps 0.1 0.3 1 3 10 --variants 0,0 inf,inf~0.25 --seeds 0 1 2 3 4 \
    > $R/raw_G.txt 2> $R/stderr_G.txt
uptime >> $R/G_uptime.txt
grep -v "^#" $R/raw_G.txt > /tmp/stein32_G_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/stein32_G_rows.txt > $R/summary_G.txt
python $R/cell_ci.py $R/raw_G.txt 0,0 inf,inf~0.25 > $R/ci_G.txt

#!/bin/bash
# Fresh held-out set F (stein_higher.SET_F, committed before any set-F row): the pre-declared choice inf,inf and the
# fallback 10,0 against main (0,0), paired, epsilon 0.1-3 and 10 (inf bands act at 10 on titanic / adult: 10 is
# checked here although the fit covered 0.1-3), seeds 0-4. -> raw_F.txt, summary_F.txt, ci_F.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/stein32
F=$(python -c "import sys; sys.path[:0] = ['$R', 'benchmarks', 'benchmarks/results_catrule/stein31']
import stein_higher as s; print(' '.join('F:' + k for k in s.SET_F))")
uptime > $R/F_uptime.txt
python $R/stein_higher.py --shapes $F --eps 0.1 0.3 1 3 10 --variants 0,0 inf,inf 10,0 --seeds 0 1 2 3 4 \
    > $R/raw_F.txt 2> $R/stderr_F.txt
uptime >> $R/F_uptime.txt
grep -v "^#" $R/raw_F.txt > /tmp/stein32_F_rows.txt
python benchmarks/catrule_drop_summary.py /tmp/stein32_F_rows.txt > $R/summary_F.txt
python $R/cell_ci.py $R/raw_F.txt 0,0 inf,inf 10,0 > $R/ci_F.txt

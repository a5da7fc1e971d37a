#!/bin/bash
# The chosen rule's worst synthetic cells (cat8-m400 at 0.3: 1.029 seen; cat8-a2-m800 at 0.3: 1.021 held out;
# tit6-m1k at 0.3: 1.013), 12 more seeds each (4-15), paired with main's rule: how large is the loss?
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
uptime > $R/worst_cells_uptime.txt
python benchmarks/pubrule_study.py --shapes cat8-m400 cat8-a2-m800 tit6-m1k --eps 0.3 --variants 5,5,8 2.5,5,8~1 \
    --seeds 4 5 6 7 8 9 10 11 12 13 14 15 > $R/raw_worst_cells.txt 2> $R/stderr_worst_cells.txt
uptime >> $R/worst_cells_uptime.txt

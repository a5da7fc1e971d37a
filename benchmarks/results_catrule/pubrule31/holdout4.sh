#!/bin/bash
# Round 4 held out: the fresh set C (pubrule_study.NEW, defined at 19:14 UTC before any round-4 row), the variants
# chosen from raw_round4_fit.txt (summary_round4_fit.txt) and main's rule first.
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/pubrule31
V=${V:-"5,5,8 2.5,5,8~1 3,5,8~1 2,5,8~1"}
uptime > $R/holdout4_uptime.txt
python benchmarks/pubrule_study.py --shapes tit9-geo5-m1k tit9-a05-m1k cat7-geo-m1500 cat7-m1500 adl9-m4k adl9-geo-m4k \
    cat8-a2-m800 --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 > $R/raw_round4_holdout.txt 2> $R/stderr_holdout4.txt
uptime >> $R/holdout4_uptime.txt

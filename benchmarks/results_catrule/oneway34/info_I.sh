#!/bin/bash
# Information only (no variant met the seen bar in rounds 1-2): the fresh set I with A (stein31's hybrid alone, the
# lowest seen worst cell) against main, every epsilon where the public diagnostic says it changes, seeds 0-15.
# -> diag_I.txt, raw_I.txt, summary_I.txt, ci_I.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/oneway34
I="I:i-small-m350 I:i-small10-m300 I:i-small-geo-m500 I:i-flat-m600 I:i-flat-m1500 I:i-skew-m800 I:i-skew-m2500
   I:i-tit-m1000 I:i-tit-geo-m1300 I:i-tit-skew-m2000 I:i-tit-geo-skew-m1600 I:i-adl-m5k I:i-adl-geo-m20k I:i-adl-m50k"
python $R/oneway_study.py --diag --shapes $I --eps 0.03 0.1 0.3 1 3 10 --variants main A B2 C1 > $R/diag_I.txt
uptime > $R/I_uptime.txt
python $R/oneway_study.py --shapes $I --eps 0.03 0.1 0.3 1 3 10 --variants main A \
    --seeds 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 > $R/raw_I.txt 2> $R/stderr_I.txt
uptime >> $R/I_uptime.txt
python $R/summarize.py $R/raw_I.txt > $R/summary_I.txt
python $R/summarize.py $R/raw_I.txt --cells A > $R/ci_I.txt

#!/bin/bash
# Round 2 (seen synthetic shapes only): the lower 1-way bars / floors with the strong factor below 2.5 (suffix s),
# against main, seeds 0-9, two processes (error only). -> raw_fit2.txt
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/oneway34
source $R/shapes.sh
set -- $SEEN
N=$#; H=$(( (N + 1) / 2 ))
S1="${@:1:$H}"; S2="${@:$((H + 1))}"
V="main A B2s B1.5s B1s C1s C0s N1s"
uptime > $R/fit2_uptime.txt
python $R/oneway_study.py --shapes $S1 --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 4 5 6 7 8 9 \
    > $R/raw_fit2_1.txt 2> $R/stderr_fit2_1.txt &
python $R/oneway_study.py --shapes $S2 --eps 0.03 0.1 0.3 1 3 10 --variants $V --seeds 0 1 2 3 4 5 6 7 8 9 \
    > $R/raw_fit2_2.txt 2> $R/stderr_fit2_2.txt &
wait
uptime >> $R/fit2_uptime.txt
cat $R/raw_fit2_1.txt $R/raw_fit2_2.txt > $R/raw_fit2.txt

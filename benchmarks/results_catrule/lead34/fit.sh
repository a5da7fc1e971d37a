#!/bin/bash
# Step 1 of RULE.md: every seen shape, L against main, seeds 0-9, two processes (error only).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$PWD
R=benchmarks/results_catrule/lead34
source benchmarks/results_catrule/oneway34/shapes.sh
set -- $SEEN
N=$#; H=$(( (N + 1) / 2 ))
S1="${@:1:$H}"; S2="${@:$((H + 1))}"
uptime > $R/fit_uptime.txt
python $R/l1sel_study.py --shapes $S1 --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 5 6 7 8 9 \
    > $R/raw_fit_1.txt 2> $R/stderr_fit_1.txt &
python $R/l1sel_study.py --shapes $S2 --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 5 6 7 8 9 \
    > $R/raw_fit_2.txt 2> $R/stderr_fit_2.txt &
wait
uptime >> $R/fit_uptime.txt
cat $R/raw_fit_1.txt $R/raw_fit_2.txt > $R/raw_fit.txt

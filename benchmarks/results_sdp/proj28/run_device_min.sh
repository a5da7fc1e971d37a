export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
S=/tmp/s.py; J=$OUT/r.jsonl
nvidia-smi -L; uptime
taskset -c 2 python3 $S dp 40 lowrank >>$J 2>>$OUT/err.txt & taskset -c 3 python3 $S dp 30 lowrank >>$J 2>>$OUT/err.txt &
G=lowrank:{\"device\":\"cuda\"}
for a in "dp 40" "dp 30"; do taskset -c 1 python3 $S $a $G >>$J 2>>$OUT/err.txt; done
wait; uptime; cat $J; tail -3 $OUT/err.txt

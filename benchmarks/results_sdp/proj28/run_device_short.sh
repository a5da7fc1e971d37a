export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
S=/tmp/s.py; J=$OUT/r.jsonl
nvidia-smi -L; uptime; git log --oneline | head -1
q(){ c=$1; shift; for a in "$@"; do taskset -c $c python3 $S $a >>$J 2>>$OUT/err.txt; done; }
q 2 "dp 40 lowrank" & q 3 "dp 40 admm" & q 4 "dp 30 lowrank" "dp 30 admm" &
TL=$1 q 5 "dp 50 lowrank" & TL=$1 q 6 "dp 50 admm" &
G=lowrank:{\"device\":\"cuda\"}
for a in "dp 40" "dp 50" "dp 30"; do taskset -c 1 python3 $S $a $G >>$J 2>>$OUT/err.txt; done
wait; uptime; cat $J

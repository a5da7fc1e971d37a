# one device call: host admm / lowrank (main's code, one BLAS thread, each process pinned to its own core)
# and lowrank device="cuda" (core 1, alone on the GPU), same inputs, same run; results in $OUT/r.jsonl
# (the call wrote sweep1.py to /tmp/s.py first: the device receives /work/main's tree, not this branch's)
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
S=/tmp/s.py; J=$OUT/r.jsonl
nvidia-smi -L; nproc; uptime; python3 -c "import torch,numpy,scipy;print(torch.__version__,numpy.__version__,scipy.__version__)"
q(){ c=$1; shift; for a in "$@"; do taskset -c $c python3 $S $a >>$J 2>>$OUT/err.txt; done; }
for c in 2 3 4; do q $c "dp 50 admm" & done
for c in 5 6 7; do q $c "dp 50 lowrank" & done
for c in 8 9 10; do q $c "dp 40 admm" "dp 40 lowrank" & done
for c in 11 12 13; do q $c "dp 30 admm" "dp 30 lowrank" "boundary 30 admm" "boundary 30 lowrank" & done
G=lowrank:{\"device\":\"cuda\"}
for k in 1 2 3; do for a in "dp 30" "boundary 30" "dp 40" "dp 50"; do taskset -c 1 python3 $S $a $G >>$J 2>>$OUT/err.txt; done; done
wait; uptime; cat $J

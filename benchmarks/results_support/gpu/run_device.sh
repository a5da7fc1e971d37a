#!/bin/bash
# Issue 15 item 5, the measured device call: supports (rankone_newton) n = 64 on the GPU against the host, n = 100
# on the GPU, projections dp n = 50 (lowrank and admm on the GPU against lowrank and admm on the host), one BLAS
# thread everywhere. The host solves run concurrently with the device solves, each pinned to its own core of the
# 16-core machine (the GPU process on core 1, alone on the GPU), so one call measures all of them on the same
# inputs. Run by the `run` tool from the repository root: bash benchmarks/results_support/gpu/run_device.sh
# (at most CALL seconds; $OUT comes back: output.txt and the per-solve JSON).
CALL=${CALL:-560}
set -x
exec > >(tee "$OUT/output.txt") 2>&1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
nvidia-smi -L; nproc; uptime
python3 -c "import torch, numpy, scipy; print(torch.__version__, numpy.__version__, scipy.__version__)"
S=benchmarks/support_device.py
P=benchmarks/moment_projection.py
pin() { local c=$1; shift; if taskset -c "$c" true 2>/dev/null; then taskset -c "$c" "$@"; else "$@"; fi; }
pin 2 python3 $S --ns 64 --devices host --max-time 420 --json "$OUT/n64_host.json" > /tmp/n64_host.txt 2>&1 &
pin 3 python3 $P --regime dp --system unit_ball --n 50 --solvers admm --repeat 1 --time-limit 330 --timeout 400 \
    --json "$OUT/dp50_host_admm.json" > /tmp/dp50_host_admm.txt 2>&1 &
P2=$!
pin 4 python3 $P --regime dp --system unit_ball --n 50 --solvers lowrank --repeat 1 --time-limit 330 --timeout 400 \
    --json "$OUT/dp50_host_lowrank.json" > /tmp/dp50_host_lowrank.txt 2>&1 &
P3=$!
pin 1 python3 $S --ns 64 --devices cuda --max-time 300 --json "$OUT/n64_cuda.json"
pin 1 python3 $P --regime dp --system unit_ball --n 50 --solvers 'lowrank:{"device": "cuda"}' 'admm:{"device": "cuda"}' \
    --repeat 1 --timeout 200 --json "$OUT/dp50_cuda.json"
N100=$(( CALL - SECONDS - 150 ))
echo "n = 100: solver time limit $N100 s"
if [ "$N100" -gt 60 ]; then
    pin 1 python3 $S --ns 100 --devices cuda --max-time $N100 --no-recertify --json "$OUT/n100_cuda.json"
fi
wait $P1 $P2 $P3
uptime
cat /tmp/n64_host.txt /tmp/dp50_host_admm.txt /tmp/dp50_host_lowrank.txt

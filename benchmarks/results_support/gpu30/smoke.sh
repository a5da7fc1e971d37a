#!/bin/bash
# Issue 15 item 5, session 30, first device call (short): the device tests on main (session 29 changed the rough and
# Newton phases since the last GPU run), the machine's cores, the decomposition's cost at order 5,151 in both
# precisions. Run by the `run` tool from the repository root: bash benchmarks/results_support/gpu30/smoke.sh
set -x
exec > >(tee "$OUT/smoke_output.txt") 2>&1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
nvidia-smi -L; nproc; python3 -c "import os; print('affinity', len(os.sched_getaffinity(0)), 'cpu_count', os.cpu_count())"; uptime
python3 -c "import torch, numpy, scipy, numba; print(torch.__version__, numpy.__version__, scipy.__version__, numba.__version__)"
timeout 200 python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_sdp_gpu.py 2>&1 | tail -n 8
timeout 60 python3 benchmarks/device_eigh_timing.py --device cuda --orders 5151 --repeat 3 --columns 128
python3 - <<'PY'
import time, numpy as np
from threadpoolctl import threadpool_info
print([ (i['internal_api'], i['num_threads']) for i in threadpool_info()])
A = np.random.default_rng(0).standard_normal((5151, 5151))
for _ in range(2):
    t = time.perf_counter(); A @ A; print(f"host dgemm 5151: {time.perf_counter() - t:.2f} s")
PY
uptime

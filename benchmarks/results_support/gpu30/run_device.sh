#!/bin/bash
# Issue 15 item 5, session 30, the measured device call (merged main with n100_30's full path): the device tests with
# clarabel carried (the image lacks it: two tests failed on it in smoke.sh), then n = 100 (first tensor of
# support_scale.py, seed [2026, 100], order 5,151) end to end with device="cuda" and the machine's 16 host threads,
# handing over at dr_gap 0.1 (n100_30's device_n100.sh, traced). Run by the `run` tool from the repository root with
# carry [".whl"] (the clarabel wheel):   CALL=540 bash benchmarks/results_support/gpu30/run_device.sh
CALL=${CALL:-540}
exec > >(tee "$OUT/output.txt") 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 OMP_NUM_THREADS=16 OPENBLAS_NUM_THREADS=16 MKL_NUM_THREADS=16
export SOSPROJ_MEMORY_LIMIT=68719476736
nvidia-smi -L; nproc; uptime
timeout 120 python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_sdp_gpu.py 2>&1 | tail -n 4
T=$(( CALL - SECONDS - 40 ))
echo "n = 100: solver time limit $T s"
timeout $(( T + 30 )) python3 benchmarks/results_support/newton29/newton_only.py --n 100 --tensor 0 --tol 1e-6 \
    --cache /tmp/n100_30_dev.pkl --opt dr_gap=0.1 "device='cuda'" --trace --time-limit $T
uptime

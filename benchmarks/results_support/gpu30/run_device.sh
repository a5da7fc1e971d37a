#!/bin/bash
# Issue 15 item 5, session 30, the measured device call: the device tests with clarabel carried (the image lacks it:
# two tests failed on it in smoke.sh), then the first tensor of support_scale.py at n = 100 (order 5,151) with
# device="cuda", the machine's 16 host threads for the host-side BLAS, and the host's independent recertification.
# Run by the `run` tool from the repository root with `carry: [".whl"]` (the clarabel wheel):
#   CALL=540 bash benchmarks/results_support/gpu30/run_device.sh
CALL=${CALL:-540}
exec > >(tee "$OUT/output.txt") 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 SOSPROJ_MEMORY_LIMIT=68719476736
set -x
nvidia-smi -L; nproc; uptime; git log --oneline -1 2>/dev/null
timeout 150 python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_sdp_gpu.py 2>&1 | tail -n 5
python3 -c "from threadpoolctl import threadpool_info; print([(i['internal_api'], i['num_threads']) for i in threadpool_info()])"
T=$(( CALL - SECONDS - 90 ))
echo "n = 100: solver time limit $T s"
timeout $(( T + 80 )) python3 benchmarks/support_device.py --ns 100 --devices cuda --max-time $T \
    --json "$OUT/n100_cuda.json"
uptime

#!/bin/bash
# Issue 15 item 5, first device call (short): the device tests on the GPU, the decomposition's cost by order,
# a small support on both paths and a profile of one n = 48 support on the device. Run by the `run` tool from
# the repository root: bash benchmarks/results_support/gpu/smoke_device.sh ($OUT comes back).
set -x
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
nvidia-smi -L; nproc; uptime
python3 -c "import torch, numpy, scipy; print(torch.__version__, numpy.__version__, scipy.__version__)"
python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_sdp_gpu.py 2>&1 | tail -n 5
python3 benchmarks/device_eigh_timing.py --device cuda --orders 1326 2145 5151 --repeat 5
python3 benchmarks/support_device.py --ns 30 --devices cuda host
python3 -m cProfile -s tottime benchmarks/support_device.py --ns 48 --devices cuda 2>&1 | head -n 40
uptime

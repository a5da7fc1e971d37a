#!/bin/bash
# Issue 15 item 5: the ADMM's PSD projections on a GPU (solver="admm", device="cuda") against the same ADMM on the
# host (one BLAS thread, as every issue-15 CPU number) and `lowrank` (the CPU default at these orders), same run,
# on the lent device machine (run by the `run` tool from the repository root; $OUT comes back).
set -x
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
nvidia-smi -L; python3 --version; python3 -c "import torch, numpy, scipy; print(torch.__version__, numpy.__version__, scipy.__version__)"
python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_sdp_gpu.py 2>&1 | tail -n 3
B=benchmarks/moment_projection.py
python3 $B --regime boundary --system unit_ball --n 30 --solvers 'admm:{"device": "cuda"}' admm lowrank \
    --repeat 1 --timeout 200 --json $OUT/boundary30.json
python3 $B --regime dp --system unit_ball --n 50 --solvers 'admm:{"device": "cuda"}' admm lowrank \
    --repeat 1 --timeout 260 --json $OUT/dp50.json

#!/bin/bash
# n100_30 (issue 15, session 30): n = 100, first tensor of support_scale.py (seed [2026, 100]), end to end on the lent
# machine: the rough phase and the Newton phase with device="cuda" (every decomposition on the GPU in float64; with
# FULL_STICKY the Newton face's full path is one device eigh with every eigenvector), the CG's Jacobian products and
# the rest on the host with 16 BLAS threads. No cache travels (106 MB > the 64 MiB carry limit): the rough phase is
# computed (to dr_gap 0.1: from 0.3 the Newton face grows at n = 100, notes.md) and its time printed.
# Run by the `run` tool from the repository root (this branch merged or checked out):
#   bash benchmarks/results_support/n100_30/device_n100.sh      (timeout_s ~560; $OUT/output.txt comes back)
CALL=${CALL:-540}
exec > >(tee "$OUT/output.txt") 2>&1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=16 OPENBLAS_NUM_THREADS=16 MKL_NUM_THREADS=16
export SOSPROJ_MEMORY_LIMIT=68719476736
nvidia-smi -L; nproc; uptime
python3 -c "import torch, numpy, scipy; print(torch.__version__, numpy.__version__, scipy.__version__)"
timeout $(( CALL - 20 )) python3 benchmarks/results_support/newton29/newton_only.py --n 100 --tensor 0 --tol 1e-6 \
    --cache /tmp/n100_30_dev.pkl --opt dr_gap=0.1 "device='cuda'" --trace --time-limit $(( CALL - 60 ))
uptime

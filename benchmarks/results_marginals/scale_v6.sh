#!/bin/bash
# issue 14 (branch planted3): the scale target (planted n = 64, all 3-way, <= 5 minutes per release) on the new
# binary rule: epsilon 1 (two-block cube step, the highest public SNR that takes it) and epsilon 10 (table-metric
# LNN at the tightest tolerance), one release each, on the snapshot of 43faf7a (same code as the v6 grid).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
OUT=$PWD/benchmarks/results_marginals/scale_v6.jsonl
cd /tmp/planted3_snap_43faf7a
for EPS in 1 10; do
  echo "# cd /tmp/planted3_snap_43faf7a && PYTHONPATH=\$PWD python benchmarks/marginals_scale.py --cases planted64 --repeats 1 --eps $EPS --out $OUT; load $(cut -d' ' -f1-3 /proc/loadavg)"
  PYTHONPATH=$PWD python benchmarks/marginals_scale.py --cases planted64 --repeats 1 --eps $EPS --out $OUT
done

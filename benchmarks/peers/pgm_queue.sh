#!/usr/bin/env bash
# Queue of AIM / MST runs (smartnoise-synth in /work/venv-peers), one run at a time per queue, each
# cut off after an hour (recorded as a .cutoff file).  Outputs benchmarks/results_peers/pgm/*.npz,
# which benchmarks/marginals_peers.py scores (it runs missing cells itself when asked).
# Usage: bash benchmarks/peers/pgm_queue.sh "method:dataset:eps:seed ..."
set -u
PY=${PEERS_PYTHON:-/work/venv-peers/bin/python}
DATA=${PEERS_DATA:-/work/shared/data}
OUT=benchmarks/results_peers/pgm
mkdir -p "$OUT"
for job in $1; do
  IFS=: read -r meth ds eps seed <<< "$job"
  f="$OUT/${meth}_${ds}_${eps}_${seed}"
  [ -e "$f.npz" ] || [ -e "$f.cutoff" ] && continue
  echo "$(date -u +%FT%TZ) start $job"
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" \
    timeout 3600 "$PY" benchmarks/peers/run_private_pgm.py "$meth" "$DATA/$ds.csv" "$DATA/$ds-domain.json" \
    "$eps" 1e-9 "$seed" "$f.npz"
  rc=$?
  if [ $rc -eq 124 ]; then echo "{\"cutoff_s\": 3600}" > "$f.cutoff"; fi
  echo "$(date -u +%FT%TZ) end $job rc=$rc"
done

#!/bin/bash
# End to end (rough + Newton phase), fresh processes, interleaved variants, one BLAS thread, fresh rough-phase
# cache paths (the rough phase always runs). Variants: "base" (the 69fd9cf snapshot at /tmp/rough29_base), "branch",
# "branch:key=value,key=value" (backend options of newton_only.py --opt).
# Usage: bash e2e.sh "0 1" ROUNDS "base branch branch:dr_cap_gap=0.1"
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
TENSORS=${1:-"0 1"}; ROUNDS=${2:-1}; VARIANTS=${3:-"base branch"}
for r in $(seq 1 "$ROUNDS"); do
  for t in $TENSORS; do
    for v in $VARIANTS; do
      src=$PWD; [ "$v" = base ] && src=/tmp/rough29_base
      opts=(); case "$v" in *:*) IFS=, read -ra opts <<< "${v#*:}";; esac
      c=/tmp/rough29_e2e_$$_${t}_${r}.pkl; rm -f "$c"
      echo "== round $r tensor $t $v (branch at $(git rev-parse --short HEAD)) load $(cut -d' ' -f1 /proc/loadavg)"
      PYTHONPATH=$src python benchmarks/results_support/n64_28/newton_only.py --n 64 --tensor "$t" --tol 1e-6 \
        --cache "$c" ${opts:+--opt "${opts[@]}"}
      rm -f "$c"
    done
  done
done

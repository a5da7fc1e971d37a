#!/bin/bash
# n100_32 (issue 15, session 32): the levers at n = 48 from n100_30's 0.3 hand-over (first tensor, every
# decomposition on the full path: the n = 100 regime's test bed), fresh processes, interleaved per repetition:
# main 640b3a4 (BASE), the branch's defaults, then each VARIANT (with_flags.py assignments, ';'-separated list).
# One BLAS thread. Usage (repository root, venv active):
#   BASE=/tmp/n100_32_base NEW=$PWD REPS=2 VARIANTS="pn.FULL_SINGLE_RTOL=1e-6;rn.FACE_CG_RTOL_FLOOR=1e-4" \
#     bash benchmarks/results_support/n100_32/n48_levers.sh
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
S=benchmarks/results_support/newton29/newton_only.py
F=benchmarks/results_support/n100_32/with_flags.py
C=${CACHE:-/tmp/n100_30_n48_g03.pkl}
ARGS="--n 48 --tensor 0 --tol 1e-6 --cache $C --opt dr_gap=${GAP:-0.3}"
IFS=';' read -ra VS <<< "$VARIANTS"
for rep in $(seq 1 ${REPS:-2}); do
  echo "## rep $rep main $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=${BASE:?} python $S $ARGS | grep "^n="
  echo "## rep $rep branch defaults $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  PYTHONPATH=${NEW:?} python $F -- $ARGS | grep "^n=\|^inner"
  for v in "${VS[@]}"; do
    echo "## rep $rep branch $v $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    PYTHONPATH=$NEW python $F $v -- $ARGS | grep "^n=\|^inner"
  done
done

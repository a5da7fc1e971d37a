#!/bin/bash
# issue 14 (lead, session 27): the planted64 default re-run on merged main after the lnnb / lnnc branches (the
# LNN step after the two-block cube step and the table-metric LNN step now on the dual), 5 seeds x 6 epsilons, on a
# git-archive snapshot of commit $1; seeds given as $2.. (two processes share the 2 cores). The peers' v5 rows stay
# valid (they post-process the same alloc=rp measurement); report.py reads v12_* after v6_*.
# Usage: bash benchmarks/results_peers/v12_planted64.sh COMMIT SEED... >> benchmarks/results_peers/v12_planted64.log
set -e
SNAP=/tmp/lead27_snap_$1
[ -d $SNAP ] || { mkdir -p $SNAP && git archive $1 | tar -x -C $SNAP; }
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$SNAP
OUT=$PWD/benchmarks/results_peers/v12_planted64_s$2.jsonl
echo "# snapshot of $1, seeds ${*:2}, start $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
for SEED in "${@:2}"; do
  python $SNAP/benchmarks/marginals_peers.py --datasets planted64 --epsilons 0.3 1 0.03 0.1 3 10 --seeds $SEED \
      --methods sosproj --trace-seed -1 --out $OUT
done
echo "# end $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"

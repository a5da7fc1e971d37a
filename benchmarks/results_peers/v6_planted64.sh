#!/bin/bash
# issue 14 (branch planted3): the planted64 default on the new binary rule (two-block cube step at low public
# SNR, LNN projection in the table metric above it; AUTO_MIX_TABLE), 5 seeds x 6 epsilons, on a git-archive
# snapshot of commit $1 (so edits in the worktree cannot change a running job). The peers' v5 rows stay
# valid (they post-process the same alloc=rp measurement); report.py reads v6_* after v5_*.
# Usage: bash benchmarks/results_peers/v6_planted64.sh COMMIT >> benchmarks/results_peers/v6_planted64.log
set -e
SNAP=/tmp/planted3_snap_$1
rm -rf $SNAP && mkdir -p $SNAP && git archive $1 | tar -x -C $SNAP
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=$SNAP
OUT=$PWD/benchmarks/results_peers/v6_planted64.jsonl
echo "# snapshot of $1, start $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
# 17:34: first run with every seed of an epsilon before the next epsilon (0.3, 1, 0.03, 0.1, 3, 10); stopped at
# 17:44 after one row (361 s wall per release at load 8-11). Restarted: every epsilon of a seed before the next
# seed, so that the seeds the session's compute allows cover every epsilon (rows already written are skipped).
for SEED in 0 1 2 3 4; do
  python $SNAP/benchmarks/marginals_peers.py --datasets planted64 --epsilons 0.3 1 0.03 0.1 3 10 --seeds $SEED \
      --methods sosproj --trace-seed -1 --out $OUT
done
echo "# end $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"

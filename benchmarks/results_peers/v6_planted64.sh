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
# the cells the rule changes most first: epsilon 0.3 and 1 (the losses), 0.03 and 0.1 (block cube), then 3, 10
python $SNAP/benchmarks/marginals_peers.py --datasets planted64 --epsilons 0.3 1 0.03 0.1 3 10 --seeds 0 1 2 3 4 \
    --methods sosproj --trace-seed -1 --out $OUT
echo "# end $(date -u +%H:%M) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"

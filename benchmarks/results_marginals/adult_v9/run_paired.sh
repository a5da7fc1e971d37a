#!/usr/bin/env bash
# Paired accuracy/CPU: the default release NEW (branch adult, snapshot `git archive b18eaea | tar -x -C /tmp/adv9/new`)
# vs OLD (main e1ff240, `git archive e1ff240 | tar -x -C /tmp/adv9/old`); one BLAS thread, child processes.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/adult_v9
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --new-src /tmp/adv9/new --base-src /tmp/adv9/old --out $D/paired.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 0.3 3 --seeds 0 1 2 \
    --new-src /tmp/adv9/new --base-src /tmp/adv9/old --out $D/paired.jsonl
uptime
# eps 10: OLD takes ~230 s CPU per release (ADMM at its 5,000 cap); its L1 from the v8 rows (same code, check column)
python benchmarks/extrap_study.py --datasets adult --epsilons 10 --seeds 0 1 --which new \
    --new-src /tmp/adv9/new --base-src /tmp/adv9/old --out $D/paired.jsonl
uptime

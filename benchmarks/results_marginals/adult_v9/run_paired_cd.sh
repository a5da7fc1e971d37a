#!/usr/bin/env bash
# Paired accuracy/CPU of the final default (branch adult at d2c7501: the dual's Chambolle-Dossal momentum, snapshot
# `git archive d2c7501 | tar -x -C /tmp/adv9/cd`) vs main e1ff240 (/tmp/adv9/old); as run_paired.sh.
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=benchmarks/results_marginals/adult_v9
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --new-src /tmp/adv9/cd --base-src /tmp/adv9/old --out $D/paired_cd.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 3 0.3 --seeds 0 1 2 \
    --new-src /tmp/adv9/cd --base-src /tmp/adv9/old --out $D/paired_cd.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 10 --seeds 0 --which new \
    --new-src /tmp/adv9/cd --base-src /tmp/adv9/old --out $D/paired_cd.jsonl
uptime

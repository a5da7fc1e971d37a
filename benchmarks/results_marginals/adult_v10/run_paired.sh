#!/usr/bin/env bash
# Paired NEW (snapshot of branch adult at bd18599: IPF stall stop) vs OLD (main at 5778d9e) default releases,
# adult 3 seeds and titanic 5 seeds at epsilon 0.3 / 1 / 3, one BLAS thread, each release in its own child.
#   git archive 5778d9e | tar -x -C /tmp/adult_base ; git archive bd18599 | tar -x -C /tmp/adult_new
set -u
cd "$(dirname "$0")/../../.."
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
R=benchmarks/results_marginals/adult_v10
uptime
python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \
    --base-src /tmp/adult_base --new-src /tmp/adult_new --out $R/study.jsonl
uptime
python benchmarks/extrap_study.py --datasets adult --epsilons 1 0.3 3 --seeds 0 1 2 \
    --base-src /tmp/adult_base --new-src /tmp/adult_new --out $R/study.jsonl
uptime
python benchmarks/extrap_study.py --summary $R/study.jsonl > $R/summary.txt

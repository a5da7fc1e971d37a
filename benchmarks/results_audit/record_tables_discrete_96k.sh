#!/bin/sh
# tables[discrete] registered at 96,000 runs per input (was 6,000: the uniform control was missed there, and
# sigma x 0.7 caught in 1 of 10 seeds, split_study.txt). Claims, the five controls and the power search,
# shipped rule (split). Run from the repository root:
#   nohup sh benchmarks/results_audit/record_tables_discrete_96k.sh > /tmp/record_96k.log 2>&1 &
set -x
. /work/venv/bin/activate
export PYTHONPATH=. OPENBLAS_NUM_THREADS=1 SOSPROJ_MEMORY_LIMIT=4000000000
R=benchmarks/results_audit
python benchmarks/audit_report.py --n-jobs 2 --parts controls,claims,power --only 'tables[discrete]' \
    --out $R/split_tables_discrete_96k.jsonl > $R/split_tables_discrete_96k.md

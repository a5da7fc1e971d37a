#!/bin/bash
# Session 38 (lead): the black-box audit of the default marginal release under add/remove adjacency
# (`marginals[default-add-remove]`, sosproj/audit/registry.py), on which issue 14's AIM / MST comparison is now judged:
# the three claims and the power at sigma x 0.7 / 0.5 / 0.3. One BLAS thread, 2 joblib workers as the other records.
# Usage: bash benchmarks/results_audit/record_default_add_remove.sh
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD SOSPROJ_MEMORY_LIMIT=4000000000
uptime
python benchmarks/audit_report.py --n-jobs 2 --parts claims,power --only "marginals[default-add-remove]" \
    --out benchmarks/results_audit/audit_default_add_remove.jsonl > benchmarks/results_audit/audit_default_add_remove.md
uptime

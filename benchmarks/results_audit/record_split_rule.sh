#!/bin/sh
# Re-recording with the atom-split selection rule (selection="split": atom sets defined on one half of the
# calibration runs, scored on the other; thresholds as in "calibration"), for the lattice-valued outputs where
# the rule changes the chosen event: tables[discrete] (controls, claims, power search), then the zero and grid
# controls of the other control mechanisms. One step at a time, 2 joblib workers.
# Run from the repository root:  nohup sh benchmarks/results_audit/record_split_rule.sh > /tmp/record_split.log 2>&1 &
set -x
. /work/venv/bin/activate
export PYTHONPATH=. OPENBLAS_NUM_THREADS=1 SOSPROJ_MEMORY_LIMIT=4000000000
R=benchmarks/results_audit
python benchmarks/audit_report.py --n-jobs 2 --parts controls,claims,power --only 'tables[discrete]' \
    --out $R/split_tables_discrete.jsonl > $R/split_tables_discrete.md
python benchmarks/audit_report.py --n-jobs 2 --parts controls --kinds zero,grid \
    --only 'perturb_and_project[box],cosine[gaussian],cosine[exact],marginals[gaussian]' \
    --out $R/split_controls_lattice.jsonl > $R/split_controls_lattice.md

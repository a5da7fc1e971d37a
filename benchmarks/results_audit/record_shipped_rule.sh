#!/bin/sh
# Re-recording with the shipped selection rule (calibration-size score, 19 thresholds), in priority order:
# controls, the claims of marginals[gaussian] (its registered runs changed), the selection study, the power
# search of every mechanism, then the claims of the other cheap mechanisms. One step at a time, 2 joblib workers.
# Run from the repository root:  nohup sh benchmarks/results_audit/record_shipped_rule.sh > /tmp/record.log 2>&1 &
set -x
. /work/venv/bin/activate
export PYTHONPATH=. OPENBLAS_NUM_THREADS=1 SOSPROJ_MEMORY_LIMIT=4000000000
R=benchmarks/results_audit
python benchmarks/audit_report.py --n-jobs 2 --parts controls --out $R/shipped_controls.jsonl > $R/shipped_controls.md
python benchmarks/audit_report.py --n-jobs 2 --parts claims --only 'marginals[gaussian]' \
    --out $R/shipped_claims_gaussian.jsonl > $R/shipped_claims_gaussian.md
python benchmarks/audit_selection_study.py --seeds 200 --sizes 24000,48000 --n-jobs 2 > $R/selection_study.txt
python benchmarks/audit_report.py --n-jobs 2 --parts power --out $R/shipped_power.jsonl > $R/shipped_power.md
python benchmarks/audit_report.py --n-jobs 2 --parts claims \
    --only 'perturb_and_project[box],perturb_and_project[psd],cosine[gaussian],cosine[dykstra],cosine[alternating],cosine[exact],marginals[default],marginals[symmetrize],marginals[topk],marginals[flatten],marginals[tables],tables,tables[discrete]' \
    --out $R/shipped_claims.jsonl > $R/shipped_claims.md
# then the claims of the SDP mechanisms (their former-rule rows stayed valid until replaced)
python benchmarks/audit_report.py --n-jobs 2 --parts claims --only 'marginals[sos],marginals[cube],marginals[sos-sparse]' \
    --out $R/shipped_claims_sdp.jsonl > $R/shipped_claims_sdp.md

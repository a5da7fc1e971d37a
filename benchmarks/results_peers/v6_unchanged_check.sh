#!/bin/bash
# issue 14 (branch planted3): the new binary rule must leave nltcs (n = 16: full cube step, measurement metric)
# and titanic (categorical) unchanged. Re-run the default at nltcs epsilon 0.03 / 0.3 / 1 and titanic epsilon 1,
# seeds 0-1, on this branch and (nltcs) on a snapshot of main at 243c883 (the stored v5 nltcs rows are from
# older code: they differ from main's current code by up to 5e-4 relative), and compare (same noise draw).
source /work/venv/bin/activate
export OPENBLAS_NUM_THREADS=1
rm -rf /tmp/p3_main && mkdir /tmp/p3_main && git archive 243c883 | tar -x -C /tmp/p3_main
rm -f /tmp/p3_new.jsonl /tmp/p3_main.jsonl
PYTHONPATH=$PWD python benchmarks/marginals_peers.py --datasets nltcs titanic --epsilons 0.03 0.3 1 --seeds 0 1 \
    --methods sosproj --trace-seed -1 --out /tmp/p3_new.jsonl > /dev/null
PYTHONPATH=/tmp/p3_main python /tmp/p3_main/benchmarks/marginals_peers.py --datasets nltcs --epsilons 0.03 0.3 1 \
    --seeds 0 1 --methods sosproj --trace-seed -1 --out /tmp/p3_main.jsonl > /dev/null
python - <<'PY'
import glob, json
key = lambda r: (r["dataset"], r["method"], float(r["epsilon"]), int(r["seed"]))
main = {key(r): r["l1"] for r in map(json.loads, open("/tmp/p3_main.jsonl"))}
stored = {}
for f in sorted(glob.glob("benchmarks/results_peers/v4_*.jsonl")) + sorted(glob.glob("benchmarks/results_peers/v5_*.jsonl")):
    stored.update({key(r): r["l1"] for r in map(json.loads, open(f))})
for r in map(json.loads, open("/tmp/p3_new.jsonl")):
    k = key(r)
    ref, what = (main[k], "main 243c883") if k in main else (stored.get(k), "stored v4/v5 row")
    print(f"{k[0]:8s} eps={k[2]:<5g} seed={k[3]} l1 branch {r['l1']:.12f}  {what} {ref:.12f}  equal {r['l1'] == ref}")
PY

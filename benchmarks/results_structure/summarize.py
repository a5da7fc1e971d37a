"""Summarize the before/after runs of run.sh: per case, medians over rounds of the end-to-end
time, the ratio after/before, iterations on both sides and each side's largest entry-wise
difference to the direct-SCS answer of its own run (the benchmark's "diff")."""

from __future__ import annotations

import glob
import json
import os
import statistics
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
rows: dict[tuple, dict[str, list]] = {}
for path in sorted(glob.glob(os.path.join(out, "*_round*.json"))):
    side = os.path.basename(path).split("_")[0]
    for r in json.load(open(path)):
        key = (r["system"], r["n"], r["solver"])
        d = rows.setdefault(key, {"before": [], "after": []})
        d[side].append(r)
print("| system | n | solver | before total (s) | after total (s) | after/before | iterations before/after | "
      "diff to SCS before/after |")
print("|---|---|---|---|---|---|---|---|")
for key in sorted(rows):
    d = rows[key]
    if not d["before"] or not d["after"]:
        continue
    tb = statistics.median(r["total"] for r in d["before"])
    ta = statistics.median(r["total"] for r in d["after"])
    it_b = sorted({r["iterations"] for r in d["before"]})
    it_a = sorted({r["iterations"] for r in d["after"]})
    db = max(float(r.get("diff") or 0.0) for r in d["before"])
    da = max(float(r.get("diff") or 0.0) for r in d["after"])
    print(f"| {key[0]} | {key[1]} | {key[2]} | {tb:.3f} | {ta:.3f} | {ta / tb:.2f} | {it_b}/{it_a} | "
          f"{db:.1e}/{da:.1e} |")

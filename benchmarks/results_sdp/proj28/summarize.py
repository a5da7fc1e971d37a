"""The docs table of proj28's same-run timing (local.jsonl from run_local.sh): medians per (input, solver),
CPU and wall ratios main-ADMM / this branch's auto, iterations, loads, objective difference.

    python benchmarks/results_sdp/proj28/summarize.py benchmarks/results_sdp/proj28/local.jsonl
"""
import json
import sys
from collections import defaultdict

import numpy as np

rows = defaultdict(list)
for line in open(sys.argv[1]):
    d = json.loads(line)
    rows[(d["regime"], d["n"], d["solver"])].append(d)
print("| input | n | solver (tree) | route | runs | iterations | CPU s (median) | wall s (median) | admm / CPU | "
      "admm / wall | load | objective - admm's | status |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (regime, n, solver), rs in rows.items():
    base = rows.get((regime, n, "admm"))
    cpu = float(np.median([r["cpu"] for r in rs]))
    wall = float(np.median([r["wall"] for r in rs]))
    loads = [r["load0"] for r in rs] + [r["load1"] for r in rs]
    its = sorted({r["iterations"] for r in rs})
    st = sorted({r["status"] for r in rs})
    if base:
        bc = float(np.median([r["cpu"] for r in base]))
        bw = float(np.median([r["wall"] for r in base]))
        dobj = rs[0]["objective"] - base[0]["objective"]
    tree = "main d75fdf8" if "proj28_base" in rs[0]["tree"] else "proj28"
    print(f"| `{regime}` | {n} | {solver} ({tree}) | {rs[0]['route']} | {len(rs)} | {'/'.join(map(str, its))} | "
          f"{cpu:.2f} | {wall:.2f} | {bc / cpu:.2f} | {bw / wall:.2f} | {min(loads):.1f}-{max(loads):.1f} | "
          f"{dobj:.1e} | {'/'.join(st)} |")

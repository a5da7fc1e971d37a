"""Medians of ``newton_same_run.txt`` (the Newton phase alone, main against the branch, interleaved).

Usage: python benchmarks/results_support/n64_28/summarize_newton.py \
    > benchmarks/results_support/n64_28/newton_same_run_summary.txt
"""
import re
import statistics as st
from collections import defaultdict
from pathlib import Path

rows = []
cur = None
for line in (Path(__file__).parent / "newton_same_run.txt").read_text().splitlines():
    m = re.match(r"## n=(\d+) tensor (\d) rep (\d) src (\S+)\s+(\S+) load (\S+)", line)
    if m:
        cur = m.groups()
        continue
    m = re.search(r"after rough phase cpu ([\d.]+)s.*?gap ([\d.e+-]+) upper ([\d.]+)"
                  r".*newton_steps=(\d+) newton_cg=(\d+)", line)
    if m and cur:
        rows.append({"n": int(cur[0]), "t": int(cur[1]), "who": "main" if "n64_base" in cur[3] else "new",
                     "cpu": float(m.group(1)), "gap": m.group(2), "upper": m.group(3), "steps": m.group(4),
                     "cg": m.group(5), "load": cur[5]})
by = defaultdict(list)
for r in rows:
    by[(r["n"], r["t"], r["who"])].append(r)
print("Newton phase alone (CPU s after the rough phase: Newton steps, certificates, final check), one BLAS thread")
for n, t in sorted({(r["n"], r["t"]) for r in rows}):
    a, b = by[(n, t, "main")], by[(n, t, "new")]
    ma, mb = st.median(x["cpu"] for x in a), st.median(x["cpu"] for x in b)
    print(f"n={n} tensor {t}: main {[x['cpu'] for x in a]} median {ma:.2f} | new {[x['cpu'] for x in b]} "
          f"median {mb:.2f} | main/new {ma / mb:.2f}x | Newton steps / CG main {a[0]['steps']}/{a[0]['cg']} "
          f"new {b[0]['steps']}/{b[0]['cg']}"
          f" | gap main {a[0]['gap']} new {b[0]['gap']} | upper main {a[0]['upper']} new {b[0]['upper']}"
          f" | load {a[0]['load']}-{b[-1]['load']}")

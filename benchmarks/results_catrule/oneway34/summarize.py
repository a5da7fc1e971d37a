"""Summary of oneway_study.py rows: per variant, the geometric mean over the cells in RAW (every cell where some
variant changes the release; ratio 1 where the variant is main's release) of the per-cell geometric mean over seeds
of the paired ratio variant / main, per epsilon and overall, the number of cells it changes, its worst and best
cell with the 95% t-interval. Usage: python summarize.py RAW [RAW ...] [--cells V] (per-cell table of V)."""

from __future__ import annotations

import math
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

args = sys.argv[1:]
cells_of = None
if "--cells" in args:
    i = args.index("--cells")
    cells_of = args[i + 1]
    del args[i:i + 2]
err: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
order: list[str] = []
for raw in args:
    for ln in open(raw):
        p = ln.split()
        if not p or p[0] in ("shape", "#"):
            continue
        err[p[0], p[1], p[3]][p[2]] = float(p[4])
        if p[2] not in order:
            order.append(p[2])


def cell_stats(v: str) -> dict[tuple[str, str], tuple[float, float, float, int]]:
    logs: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (s, e, _), d in err.items():
        if v in d and "main" in d:
            logs[s, e].append(math.log(d[v] / d["main"]))
    out = {}
    for c, r in logs.items():
        g, n = float(np.mean(r)), len(r)
        h = stats.t.ppf(0.975, n - 1) * float(np.std(r, ddof=1)) / math.sqrt(n) if n > 1 and np.std(r) > 0 else 0.0
        out[c] = (math.exp(g), math.exp(g - h), math.exp(g + h), n)
    return out


if cells_of:
    print(f"shape eps n ratio lo hi ({cells_of} / main)")
    for (s, e), (g, lo, hi, n) in sorted(cell_stats(cells_of).items(), key=lambda c: (c[0][0], float(c[0][1]))):
        print(f"{s} {e} {n} {g:.4f} {lo:.4f} {hi:.4f}")
    sys.exit()
eps_all = sorted({e for (_, e, _) in err}, key=float)
print("variant cells changed | geo. mean all | " + " | ".join(f"eps {e}" for e in eps_all)
      + " | worst [95%] | best | cells > 1.02")
for v in order:
    if v == "main":
        continue
    cs = cell_stats(v)
    changed = sum(1 for x in cs.values() if abs(x[0] - 1) > 1e-12)
    gm = math.exp(np.mean([math.log(x[0]) for x in cs.values()]))
    per = []
    for e in eps_all:
        xs = [math.log(x[0]) for (s, ee), x in cs.items() if ee == e]
        per.append(f"{math.exp(np.mean(xs)):.3f} ({len(xs)})" if xs else "-")
    (ws, we), w = max(cs.items(), key=lambda c: c[1][0])
    (bs, be), b = min(cs.items(), key=lambda c: c[1][0])
    n_bad = sum(1 for x in cs.values() if x[0] > 1.02)
    print(f"{v} {changed}/{len(cs)} | {gm:.4f} | " + " | ".join(per)
          + f" | {w[0]:.4f} [{w[1]:.4f}, {w[2]:.4f}] {ws}@{we} | {b[0]:.4f} {bs}@{be} | {n_bad}")

"""Per cell (shape, epsilon) the paired ratio off0 / off2 of stein_fresh.py rows: geometric mean over seeds and its
95% t-interval (normal quantile 1.96 for n > 30 is not used: t quantile from scipy)."""

from __future__ import annotations

import math
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

err: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
for ln in open(sys.argv[1]):
    p = ln.split()
    if not p or p[0] in ("shape", "#"):
        continue
    err[p[0], p[1], p[3]][p[2]] = float(p[4])
cells: dict[tuple[str, str], list[float]] = defaultdict(list)
for (s, e, _), v in err.items():
    cells[s, e].append(math.log(v["off0"] / v["off2"]))
print("shape eps n ratio lo hi (off0 / off2, geometric mean, 95% t-interval)")
for (s, e), r in sorted(cells.items(), key=lambda c: (c[0][0], float(c[0][1]))):
    g, n = float(np.mean(r)), len(r)
    h = stats.t.ppf(0.975, n - 1) * float(np.std(r, ddof=1)) / math.sqrt(n)
    print(f"{s} {e} {n} {math.exp(g):.4f} {math.exp(g - h):.4f} {math.exp(g + h):.4f}")

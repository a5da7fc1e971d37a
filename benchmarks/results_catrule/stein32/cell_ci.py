"""Per cell (shape, epsilon) the paired ratio VARIANT / BASE of stein_higher.py rows: geometric mean over seeds and
its 95% t-interval. Usage: python cell_ci.py RAW BASE VARIANT [VARIANT ...]"""

from __future__ import annotations

import math
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

raw, base, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
err: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
for ln in open(raw):
    p = ln.split()
    if not p or p[0] in ("shape", "#"):
        continue
    err[p[0], p[1], p[3]][p[2]] = float(p[4])
for v in variants:
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (s, e, _), d in err.items():
        if v in d and base in d:
            cells[s, e].append(math.log(d[v] / d[base]))
    print(f"shape eps n ratio lo hi ({v} / {base}, geometric mean over seeds, 95% t-interval)")
    for (s, e), r in sorted(cells.items(), key=lambda c: (c[0][0], float(c[0][1]))):
        g, n = float(np.mean(r)), len(r)
        h = stats.t.ppf(0.975, n - 1) * float(np.std(r, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
        print(f"{s} {e} {n} {math.exp(g):.4f} {math.exp(g - h):.4f} {math.exp(g + h):.4f}")

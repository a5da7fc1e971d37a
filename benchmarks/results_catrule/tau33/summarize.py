"""Round 1 + the information rows: the plain variants 4,8 and 5,5 against main over every seen cell (per cell the
geometric mean over seeds and its 95% t-interval, then the geometric mean, worst and best over cells, and the cells
above 1.02). Run from the worktree root: python benchmarks/results_catrule/tau33/summarize.py"""

import math
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

R = Path("benchmarks/results_catrule/tau33")
err: dict = defaultdict(dict)
for f in ("raw_fit.txt", "raw_info_plain.txt"):
    for ln in (R / f).read_text().splitlines():
        p = ln.split()
        if p and p[0] not in ("shape", "#"):
            err[p[0], p[1], p[3]][p[2]] = float(p[4])
for v in ("4,8", "5,5"):
    cells: dict = defaultdict(list)
    for (s, e, _), d in err.items():
        if v in d and "5,8" in d:
            cells[s, e].append(math.log(d[v] / d["5,8"]))
    rows = []
    for (s, e), r in sorted(cells.items(), key=lambda c: (c[0][0], float(c[0][1]))):
        g, n = float(np.mean(r)), len(r)
        h = stats.t.ppf(0.975, n - 1) * float(np.std(r, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
        rows.append((s, e, n, math.exp(g), math.exp(g - h), math.exp(g + h)))
    lg = [math.log(x[3]) for x in rows]
    changed = [x for x in rows if x[3] != 1.0]
    print(f"{v} / 5,8: {len(rows)} cells ({len(changed)} changed), geometric mean {math.exp(np.mean(lg)):.4f}, "
          f"worst {max(x[3] for x in rows):.4f}, best {min(x[3] for x in rows):.4f}; over the changed cells only "
          f"{math.exp(np.mean([math.log(x[3]) for x in changed])):.4f}")
    for x in sorted(rows, key=lambda x: -x[3]):
        if x[3] > 1.02 or x[3] < 0.95:
            print(f"  {x[0]} {x[1]} n={x[2]} {x[3]:.4f} [{x[4]:.4f}, {x[5]:.4f}]")

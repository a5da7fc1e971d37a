"""scan31: where a failing trigger's time goes. One default adult release (all 3-way, delta 1e-9, NEW on PYTHONPATH);
at each trigger check of the dual (``ResidualLayout.normal_min``) the same call is timed four ways on the same
point (median of 3 each): as the release calls it (start = the kept table), from table 0 (main's scan), with
``below = +inf`` (stops after the first row: pass 1 and the allocations, the floor of any scan order) and the full
scan (``below = None``). Also how often the kept table answered (returned table == start). Extra calls have no side
effects: the release is unchanged. Usage: python trigger_costs.py EPS SEED"""
import sys
import time

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout

eps, seed = float(sys.argv[1]), int(sys.argv[2])
orig = ResidualLayout.normal_min
rows = []


def med(f):
    ts = []
    for _ in range(3):
        t = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)), r


def timed(self, y, inv_w, shift, scale, **k):
    if k.get("start") is None or k.get("below") is None:
        return orig(self, y, inv_w, shift, scale, **k)
    s, b = k["start"], k["below"]
    t_kept, r = med(lambda: orig(self, y, inv_w, shift, scale, below=b, start=s))
    t_zero, r0 = med(lambda: orig(self, y, inv_w, shift, scale, below=b, start=0))
    t_floor, _ = med(lambda: orig(self, y, inv_w, shift, scale, below=np.inf, start=0))
    t_full, _ = med(lambda: orig(self, y, inv_w, shift, scale, below=None, start=0))
    rows.append((s, r[1], r0[1], r[0] < b, t_kept, t_zero, t_floor, t_full, y.size))
    return r


ResidualLayout.normal_min = timed
ds = sp.load_dataset("adult")
sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
big = max(x[8] for x in rows)                       # the extrapolation's projection (all 3-way tables) only
rows = [x for x in rows if x[8] == big]
a = np.array([x[4:8] for x in rows]) * 1e3
fail = np.array([x[3] for x in rows])
kept = np.array([x[0] == x[1] for x in rows])
print(f"eps {eps} seed {seed}, the {big}-cell projection: {len(rows)} trigger checks, {fail.sum()} failing; "
      f"kept table answered "
      f"{int((kept & fail).sum())} / {int(fail.sum())} failing checks; table answering from 0 (main): "
      f"{sorted(set(x[2] for x in rows if x[3]))[:12]}")
for name, col in zip(("kept start", "from 0 (main)", "floor (below=inf)", "full scan"), a.T):
    print(f"  {name:18s} ms per check: median {np.median(col[fail]):.3f} (failing), "
          f"{np.median(col[~fail]) if (~fail).any() else float('nan'):.3f} (passing); total {col.sum():.1f}")

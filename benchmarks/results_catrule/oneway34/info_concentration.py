"""Information only (an explanation, not an input: it reads the synthetic records): per seen shape, the mean over
attributes of the total-variation distance of the 1-way table from the uniform one, against the paired ratio of a
lower-bar variant at epsilon 0.1 (round-1 rows). Usage: python info_concentration.py RAW VARIANT EPS"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oneway_study as ow  # noqa: E402

raw, var, eps = sys.argv[1], sys.argv[2], sys.argv[3]
err: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
for ln in open(raw):
    p = ln.split()
    if p and p[0] not in ("shape", "#") and p[1] == eps:
        err[p[0], p[3]][p[2]] = float(p[4])
logs: dict[str, list[float]] = defaultdict(list)
for (s, _), d in err.items():
    if var in d and "main" in d:
        logs[s].append(math.log(d[var] / d["main"]))
rows = []
for s, r in sorted(logs.items()):
    ds = ow.load(s)
    tv = np.mean([0.5 * np.abs(ds.marginal((a,)) / ds.m - 1.0 / n).sum() for a, n in enumerate(ds.domain.sizes)])
    rows.append((s, float(tv), math.exp(float(np.mean(r)))))
print(f"shape mean_TV_from_uniform ratio_{var}@{eps}")
for s, tv, g in sorted(rows, key=lambda x: x[1]):
    print(f"{s} {tv:.3f} {g:.4f}")
tv, g = np.array([x[1] for x in rows]), np.log([x[2] for x in rows])
print(f"# Pearson correlation of mean TV and log ratio over {len(rows)} shapes: {np.corrcoef(tv, g)[0, 1]:.2f}")

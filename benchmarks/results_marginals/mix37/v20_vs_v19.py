"""Paired v20 / v19 nltcs default rows (same seed = same standard normals; v20 = the exact-polytope rule).

Usage: python benchmarks/results_marginals/mix37/v20_vs_v19.py > benchmarks/results_marginals/mix37/v20_vs_v19.txt
"""

import json
import math
from collections import defaultdict

import numpy as np


def rows(path):
    out = defaultdict(dict)
    for line in open(path):
        r = json.loads(line)
        if r["method"] == "sosproj":
            out[r["epsilon"]][r["seed"]] = r
    return out


a = rows("benchmarks/results_peers/v20_nltcs.jsonl")
b = rows("benchmarks/results_peers/v19_nltcs.jsonl")
print("eps seeds t_v19 t_v20 rule_v20 ratio_geomean [95% interval] ratio_of_means mean_seconds_v19 mean_seconds_v20")
cells = []
for eps in sorted(a):
    seeds = sorted(set(a[eps]) & set(b[eps]))
    lr = np.array([math.log(a[eps][s]["l1"] / b[eps][s]["l1"]) for s in seeds])
    q = 1.96 if len(lr) >= 30 else {5: 2.776}[len(lr)]
    half = q * lr.std(ddof=1) / math.sqrt(len(lr))
    rom = np.mean([a[eps][s]["l1"] for s in seeds]) / np.mean([b[eps][s]["l1"] for s in seeds])
    cells.append(lr.mean())
    s0 = seeds[0]
    print(f"{eps:g} {len(seeds)} {b[eps][s0]['auto_mix']:.3f} {a[eps][s0]['auto_mix']:.3f} "
          f"{a[eps][s0]['auto_mix_rule']} "
          f"{math.exp(lr.mean()):.4f} [{math.exp(lr.mean() - half):.4f}, {math.exp(lr.mean() + half):.4f}] {rom:.4f} "
          f"{np.mean([b[eps][s]['seconds'] for s in seeds]):.2f} {np.mean([a[eps][s]['seconds'] for s in seeds]):.2f}")
print(f"geometric mean over the 6 cells {math.exp(np.mean(cells)):.4f}")

"""Paired summary of benchmarks/mix37_study.py rows: candidate ("new", or any kind/t/g given) against "ref".

Per (data, epsilon) cell: the geometric mean over seeds of the per-seed ratio new / ref (same seed = same standard
normals), a 95% t-interval on the log ratios, the worst seed, the mean CPU of both; then the geometric mean over the
cells and over all (cell, seed) pairs.

Usage: python benchmarks/mix37_summary.py benchmarks/results_marginals/mix37/nltcs.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict

import numpy as np

T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23, 14: 2.14,
        19: 2.09, 29: 2.05}


def t975(df: int) -> float:
    return T975.get(df, T975[max(k for k in T975 if k <= df)] if df > 1 else 12.71)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--kind", default="new")
    args = ap.parse_args()
    rows: dict = defaultdict(lambda: defaultdict(dict))
    for p in args.paths:
        for line in open(p):
            r = json.loads(line)
            rows[(r["data"], r["eps"])][r["kind"]][r["seed"]] = r
    print("data eps seeds t_ref t_new ratio [95% interval] worst_seed cpu_ref cpu_new")
    cell_logs, all_logs = [], []
    for (data, eps), by in sorted(rows.items()):
        seeds = sorted(set(by["ref"]) & set(by[args.kind]))
        if not seeds:
            continue
        lr = np.array([math.log(by[args.kind][s]["l1"] / by["ref"][s]["l1"]) for s in seeds])
        mu = lr.mean()
        half = t975(len(lr) - 1) * lr.std(ddof=1) / math.sqrt(len(lr)) if len(lr) > 1 else float("nan")
        cell_logs.append(mu)
        all_logs += list(lr)
        s0 = seeds[0]
        print(f"{data} {eps:g} {len(seeds)} {by['ref'][s0]['t']:.3f} {by[args.kind][s0]['t']:.3f} "
              f"{math.exp(mu):.4f} [{math.exp(mu - half):.4f}, {math.exp(mu + half):.4f}] "
              f"{math.exp(lr.max()):.4f} {np.mean([by['ref'][s]['cpu_s'] for s in seeds]):.2f} "
              f"{np.mean([by[args.kind][s]['cpu_s'] for s in seeds]):.2f}")
    print(f"cells {len(cell_logs)}: geometric mean of the cell ratios {math.exp(np.mean(cell_logs)):.4f}, "
          f"worst cell {math.exp(max(cell_logs)):.4f}; over all {len(all_logs)} (cell, seed) pairs "
          f"{math.exp(np.mean(all_logs)):.4f}")


if __name__ == "__main__":
    main()

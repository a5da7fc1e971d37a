"""Summary of ``benchmarks/joint_study.py`` rows: paired ratios exact polytope / cube path per (data, epsilon).

Per cell: the number of seeds, the geometric mean of the per-seed L1 ratios with its 95% t-interval, the worst
seed, and the median CPU seconds of each path. Then the geometric mean over all cells and the worst cell.

Usage: python benchmarks/joint_summary.py benchmarks/results_marginals/joint36/synthetic.jsonl
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict

import numpy as np
from scipy.stats import t as student_t


def main(paths: list[str]) -> None:
    cells: dict = defaultdict(list)
    for path in paths:
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                cells[(r["data"], float(r["eps"]))].append(r)
    print("data eps seeds ratio [95% interval] worst joint_cpu_s cube_cpu_s joint_l1 cube_l1 uncertified")
    means = []
    for (data, eps), rs in cells.items():
        lr = np.log([r["joint"]["l1"] / r["cube"]["l1"] for r in rs])
        n = len(lr)
        h = student_t.ppf(0.975, n - 1) * lr.std(ddof=1) / math.sqrt(n) if n > 1 else math.inf
        means.append((float(np.exp(lr.mean())), data, eps))
        bad = sum(not r["joint"]["converged"] for r in rs)
        print(f"{data} {eps:g} {n} {math.exp(lr.mean()):.4f} [{math.exp(lr.mean() - h):.4f}, "
              f"{math.exp(lr.mean() + h):.4f}] {math.exp(lr.max()):.4f} "
              f"{np.median([r['joint']['cpu_s'] for r in rs]):.2f} {np.median([r['cube']['cpu_s'] for r in rs]):.2f} "
              f"{np.mean([r['joint']['l1'] for r in rs]):.5f} {np.mean([r['cube']['l1'] for r in rs]):.5f} {bad}")
    g = math.exp(np.mean([math.log(m) for m, _, _ in means]))
    worst = max(means)
    best = min(means)
    print(f"cells {len(means)}: geometric mean of the cell ratios {g:.4f}; worst cell {worst[1]} {worst[2]:g} "
          f"{worst[0]:.4f}; best cell {best[1]} {best[2]:g} {best[0]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])

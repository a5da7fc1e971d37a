"""Summary of ``select_pairs_study.py`` rows: per variant, the geometric mean of the paired ratios over all rows,
the worst cell (mean ratio over seeds of one shape and epsilon) and the per-cell mean ratios.

Usage: python benchmarks/select_pairs_summary.py benchmarks/results_marginals/adult36/study_fit.txt [...]
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict


def main() -> None:
    rows = []
    for path in sys.argv[1:]:
        with open(path) as fh:
            for line in fh:
                p = line.split()
                if len(p) >= 7 and p[0] != "shape":
                    rows.append((p[0], float(p[1]), int(p[2]), p[3], float(p[6])))
    cells: dict[str, dict[tuple[str, float], list[float]]] = defaultdict(lambda: defaultdict(list))
    for shape, eps, _, var, ratio in rows:
        cells[var][(shape, eps)].append(ratio)
    for var, cs in sorted(cells.items()):
        logs = [math.log(r) for v in cs.values() for r in v]
        means = {c: math.exp(sum(map(math.log, v)) / len(v)) for c, v in cs.items()}
        worst = max(means, key=means.get)
        print(f"{var}: rows {len(logs)}, cells {len(cs)}, geometric mean {math.exp(sum(logs) / len(logs)):.4f}, "
              f"worst cell {worst[0]} {worst[1]:g} {means[worst]:.4f}, best {min(means.values()):.4f}, "
              f"cells > 1.02: {sum(v > 1.02 for v in means.values())}")
        print("   " + "  ".join(f"{s}@{e:g}={r:.3f}" for (s, e), r in sorted(means.items())))


if __name__ == "__main__":
    main()

"""Summary of ``benchmarks/wide37_study.py`` output: per (shape, epsilon) cell the geometric mean over seeds of each
variant's paired ratio to the baseline (the first variant), then per variant the geometric mean over cells, the
worst and the best cell, and the number of cells above 1.01.

Usage: python benchmarks/wide37_summary.py RAW [RAW ...] [--cells] [--gate]

``--gate``: rows whose release measured every residual set (``measured_1/2/3`` = ``n / C(n,2) / C(n,3)``) count as
ratio 1, the rule's gate (no correction where the skip rule skips nothing; raw files written before the gate).
"""

from __future__ import annotations

import math
import sys
from math import comb
from collections import defaultdict


def main() -> None:
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    show = "--cells" in sys.argv
    gate = "--gate" in sys.argv
    ratios: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    order: list[str] = []
    for f in files:
        for line in open(f):
            p = line.split()
            if len(p) < 8 or p[0] == "shape" or not p[4].replace(".", "").isdigit():
                continue
            shape, eps, v, _seed, _err, ratio = p[:6]
            n1, n2, n3 = (int(x) for x in p[6].split("/"))
            if gate and n2 == comb(n1, 2) and n3 == comb(n1, 3) and n1 >= 3:
                ratio = "1.0"
            ratios[(shape, eps)][v].append(float(ratio))
            if v not in order:
                order.append(v)
    gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
    cells = sorted(ratios, key=lambda c: (c[0], float(c[1])))
    if show:
        print("cell " + " ".join(f"{v:>7}" for v in order[1:]) + "  seeds")
        for c in cells:
            r = ratios[c]
            print(f"{c[0]}@{c[1]} " + " ".join(f"{gm(r[v]):7.4f}" if r.get(v) else "      -" for v in order[1:])
                  + f"  {len(r[order[0]])}")
    print("variant  cells  gmean   worst            best             n>1.01")
    for v in order[1:]:
        per = {c: gm(ratios[c][v]) for c in cells if ratios[c].get(v)}
        if not per:
            continue
        w = max(per, key=per.get)
        b = min(per, key=per.get)
        print(f"{v:>7} {len(per):5d}  {gm(list(per.values())):.4f}  {per[w]:.4f} {w[0]}@{w[1]}  {per[b]:.4f} "
              f"{b[0]}@{b[1]}  {sum(x > 1.01 for x in per.values())}")


if __name__ == "__main__":
    main()

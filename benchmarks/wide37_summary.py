"""Summary of ``benchmarks/wide37_study.py`` output: per (shape, epsilon) cell the geometric mean over seeds of each
variant's paired ratio to the baseline (the first variant), then per variant the geometric mean over cells, the
worst and the best cell, and the number of cells above 1.01.

Usage: python benchmarks/wide37_summary.py RAW [RAW ...] [--cells] [--gate]
       python benchmarks/wide37_summary.py RAW [RAW ...] --detail VARIANT   (per cell: CI, min, max, L1, CPU)

``--gate``: rows whose release measured every residual set (``measured_1/2/3`` = ``n / C(n,2) / C(n,3)``) count as
ratio 1, the rule's gate (no correction where the skip rule skips nothing; raw files written before the gate).
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict
from math import comb


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




def detail(files: list[str], variant: str) -> None:
    """Per cell: seeds, geometric mean of the paired ratios, min, max, a 95% t-interval of the geometric mean, the
    mean L1 of the baseline and of ``variant``, and the CPU ratio (means)."""
    rows: dict[tuple[str, str], dict[str, list[tuple[float, float, float]]]] = defaultdict(lambda: defaultdict(list))
    for f in files:
        for line in open(f):
            p = line.split()
            if len(p) < 8 or p[0] == "shape" or not p[4].replace(".", "").isdigit():
                continue
            rows[(p[0], p[1])][p[2]].append((float(p[4]), float(p[5]), float(p[7])))
    t975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}
    print(f"cell seeds gmean [95% CI] min max | L1 base -> {variant} | cpu ratio")
    for c in sorted(rows, key=lambda c: (c[0], float(c[1]))):
        v = rows[c].get(variant)
        base = rows[c][next(iter(rows[c]))]
        if not v:
            continue
        lr = [math.log(x[1]) for x in v]
        n = len(lr)
        mu = sum(lr) / n
        sd = math.sqrt(sum((x - mu) ** 2 for x in lr) / (n - 1)) if n > 1 else 0.0
        h = t975.get(n - 1, 1.96) * sd / math.sqrt(n)
        cpu = sum(x[2] for x in v) / max(sum(x[2] for x in base), 1e-9)
        print(f"{c[0]}@{c[1]} {n} {math.exp(mu):.4f} [{math.exp(mu - h):.4f}, {math.exp(mu + h):.4f}] "
              f"{min(x[1] for x in v):.4f} {max(x[1] for x in v):.4f} | {sum(x[0] for x in base) / len(base):.5f} -> "
              f"{sum(x[0] for x in v) / n:.5f} | {cpu:.2f}")


if __name__ == "__main__":
    if "--detail" in sys.argv:
        i = sys.argv.index("--detail")
        detail([a for a in sys.argv[1:i] if not a.startswith("--")], sys.argv[i + 1])
    else:
        main()

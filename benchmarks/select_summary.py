"""Summary of ``select_study.py`` rows: per (shape, epsilon) cell the geometric mean over seeds of the paired ratio
variant / ``0:1`` (the release without the selection), then the geometric mean and the worst cell per variant.

Usage: python benchmarks/select_summary.py RAW [RAW ...] > SUMMARY
"""

from __future__ import annotations

import collections
import sys

import numpy as np


def main() -> None:
    rows = [ln.split() for p in sys.argv[1:] for ln in open(p).read().splitlines()[1:]
            if ln.strip() and "identical" not in ln]
    base = {(r[0], r[1], r[3]): float(r[4]) for r in rows if r[2] == "0:1"}
    cell: dict = collections.defaultdict(list)
    for r in rows:
        if (r[0], r[1], r[3]) in base:
            cell[(r[2], r[0], r[1])].append(float(r[4]) / base[(r[0], r[1], r[3])])
    variants = sorted({k[0] for k in cell})
    shapes = sorted({(k[1], float(k[2])) for k in cell})
    print("shape eps " + " ".join(variants) + "   (geometric mean over seeds of variant / 0:1)")
    for s, e in shapes:
        vals = [cell.get((v, s, f"{e:g}")) for v in variants]
        print(f"{s} {e:g} " + " ".join("-" if x is None else f"{np.exp(np.mean(np.log(x))):.4f}" for x in vals))
    for v in variants:
        g = [np.exp(np.mean(np.log(x))) for (vv, _, _), x in cell.items() if vv == v]
        print(f"variant {v}: geometric mean {np.exp(np.mean(np.log(g))):.4f}, worst {max(g):.4f}, best {min(g):.4f}, "
              f"cells {len(g)}")


if __name__ == "__main__":
    main()

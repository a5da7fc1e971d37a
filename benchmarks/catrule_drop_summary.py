"""Summary of ``catrule_drop.py`` rows: per (shape, epsilon) the error of each variant over the first variant's
(paired by seed, geometric mean over seeds), then per variant the geometric mean and worst cell.

Usage: python benchmarks/catrule_drop_summary.py benchmarks/results_catrule/cat29/raw_fit.txt
"""

from __future__ import annotations

import math
import sys
from collections import defaultdict


def main() -> None:
    rows = [ln.split() for ln in open(sys.argv[1]) if ln.strip() and not ln.startswith("shape")]
    err: dict[tuple[str, str, str, str], float] = {}
    kept: dict[tuple[str, str, str], str] = {}
    variants: list[str] = []
    for shape, eps, var, seed, e, meas, *_ in rows:
        err[shape, eps, var, seed] = float(e)
        kept[shape, eps, var] = meas
        if var not in variants:
            variants.append(var)
    base = variants[0]
    cells = sorted({(s, e) for s, e, _, _ in err}, key=lambda c: (c[0], float(c[1])))
    logs: dict[str, list[float]] = defaultdict(list)
    print("shape eps " + " ".join(variants) + f"   (error / error of {base}, geo. mean over seeds; kept 1/2/3)")
    for s, e in cells:
        out = []
        for v in variants:
            r = [math.log(err[s, e, v, sd] / err[s, e, base, sd]) for (s2, e2, v2, sd) in err
                 if (s2, e2, v2) == (s, e, base) and (s, e, v, sd) in err]
            g = math.exp(sum(r) / len(r))
            logs[v].append(math.log(g))
            out.append(f"{g:.3f}[{kept[s, e, v]}]")
        b = [err[s, e, base, sd] for (s2, e2, v2, sd) in err if (s2, e2, v2) == (s, e, base)]
        print(f"{s} {e} " + " ".join(out) + f"   ({base}: {sum(b) / len(b):.4f})")
    for v in variants:
        print(f"{v}: geometric mean ratio {math.exp(sum(logs[v]) / len(logs[v])):.4f}, "
              f"worst {math.exp(max(logs[v])):.4f}, best {math.exp(min(logs[v])):.4f}, cells {len(logs[v])}")


if __name__ == "__main__":
    main()

"""Summarize the skip-threshold study (``benchmarks/catrule_study.py`` output): per (shape, epsilon) the error
of every tau relative to tau = 0 (every set measured, the default before), and per tau the geometric mean of
that ratio over the cells and its worst cell.

Usage: python benchmarks/catrule_fit.py benchmarks/results_catrule/raw_fit.txt
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np


def main() -> None:
    err: dict[tuple[str, float], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for f in sys.argv[1:]:
        for ln in open(f):
            if not ln.strip() or ln.startswith("shape"):
                continue
            shape, eps, tau, _seed, e, *_ = ln.split()
            err[(shape, float(eps))][tau].append(float(e))
    def order(t: str) -> tuple[float, ...]:
        tau, _, mix = t.partition("/t=")
        return tuple(float(x) for x in tau.split(",")[::-1]) + ((float(mix),) if mix else (-1.0,))

    taus = sorted({t for by in err.values() for t in by}, key=order)
    print("shape eps " + " ".join(f"tau={t}" for t in taus) + "   (error / error at tau = 0; tau = tau_1,tau)")
    ratios: dict[str, list[float]] = defaultdict(list)
    for key in sorted(err):
        by = err[key]
        base = float(np.mean(by["0"]))
        row = []
        for t in taus:
            if t in by:
                r = float(np.mean(by[t])) / base
                ratios[t].append(r)
                row.append(f"{r:.3f}")
            else:
                row.append("-")
        print(f"{key[0]} {key[1]:g} " + " ".join(row) + f"   (tau=0: {base:.4f})")
    for t in taus:
        r = np.array(ratios[t])
        print(f"tau {t}: geometric mean ratio {float(np.exp(np.log(r).mean())):.4f}, worst {r.max():.4f}, "
              f"cells {len(r)}")


if __name__ == "__main__":
    main()

"""Fit of AUTO_MIX_TABLE (sosproj.mechanisms.marginals_pipeline) to the output of planted_mix_fit.sh.

Reads lines of ``benchmarks/planted_rule_study.py`` (variant ``lnn-g0@def``, several mixing weights ``t``
per (shape, epsilon)), interpolates each cell's error linearly in ``t`` between the grid points, and
grid-searches ``t(snr) = t_max / (1 + (snr / snr_0)^p) / (1 + (snr_lo / snr)^q)`` (the form of
``auto_mix``'s one-hot rule) for the least mean regret (error / best grid error - 1). Prints the chosen
parameters and, per cell, the regret of the fit, of ``t = 0`` (ResidualPlanner's allocation) and of the
old ``"lnn"`` rule (AUTO_MIX).

Usage: python benchmarks/planted_rule_fit.py benchmarks/results_allocation/planted_mix_fit.txt
"""

from __future__ import annotations

import itertools
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sosproj.mechanisms.marginals_pipeline import AUTO_MIX  # noqa: E402

LINE = re.compile(r"^(\S+) n=(\d+) m=(\d+) eps=(\S+) seed=\d+ alloc=auto mix=(\S+) snr=(\S+) lnn-g0@def\s+l1=(\S+)")


def load(path: str) -> dict:
    cells: dict = defaultdict(dict)
    for line in Path(path).read_text().splitlines():
        mt = LINE.match(line)
        if mt:
            gen, n, m, eps, t, snr, l1 = mt.groups()
            cells[(gen, int(n), int(m), float(eps), float(snr))][float(t)] = float(l1)
    return cells


def rule(snr: float, t_max: float, snr0: float, p: float, snr_lo: float, q: float) -> float:
    t = t_max / (1.0 + (snr / snr0) ** p)
    return t / (1.0 + (snr_lo / snr) ** q) if snr_lo > 0 else t


def regret(curve: dict, t: float) -> float:
    ts = np.array(sorted(curve))
    es = np.array([curve[x] for x in ts])
    return float(np.interp(min(max(t, ts[0]), ts[-1]), ts, es) / es.min() - 1.0)


def main(path: str) -> None:
    cells = load(path)
    grid = itertools.product((0.2, 0.3, 0.4, 0.5), (30.0, 100.0, 300.0), (1.0,), (0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
                             (1.0, 2.0, 3.0))
    fits = []
    for par in grid:
        if par[3] == 0.0 and par[4] != 1.0:
            continue
        fits.append((float(np.mean([regret(c, rule(k[4], *par)) for k, c in cells.items()])), par))
    fits.sort()
    best = fits[0]
    print(f"cells: {len(cells)}; best (t_max, snr_0, p, snr_lo, q) = {best[1]}: mean regret {best[0]:.4f}")
    r0 = np.mean([regret(c, 0.0) for c in cells.values()])
    lnn = np.mean([regret(c, rule(k[4], *AUTO_MIX, 0.0, 1.0)) for k, c in cells.items()])
    print(f"t = 0 (ResidualPlanner's allocation): mean regret {r0:.4f}; the old lnn rule {AUTO_MIX}: {lnn:.4f}")
    print("shape                      eps    snr    best_t  err(best)  regret(fit) regret(t=0) regret(lnn rule)")
    for k in sorted(cells, key=lambda k: (k[0], k[1], k[3])):
        c = cells[k]
        bt = min(c, key=c.get)
        print(f"{k[0]:10s} n={k[1]:<3d} m={k[2]:<6d} {k[3]:<6g} {k[4]:<6.3g} {bt:<7g} {c[bt]:.5f}    "
              f"{regret(c, rule(k[4], *best[1])):.4f}      {regret(c, 0.0):.4f}      "
              f"{regret(c, rule(k[4], *AUTO_MIX, 0.0, 1.0)):.4f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "benchmarks/results_allocation/planted_mix_fit.txt"))

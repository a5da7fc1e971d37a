"""Summarize benchmarks/results_allocation/raw.txt: best mixing weight t per (shape, epsilon) and the fitted rule.

Usage: python benchmarks/allocation_fit.py benchmarks/results_allocation/raw.txt
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms.marginals_pipeline import auto_mix, public_snr

sys.path.insert(0, "benchmarks")
from allocation_study import SHAPES  # noqa: E402


def main() -> None:
    rows = [ln.split() for ln in open(sys.argv[1]) if ln[0] != "s"]
    err: dict[tuple[str, float], dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    snr: dict[tuple[str, float], float] = {}
    for shape, eps, mix, _snr_old, _seed, e, _t in rows:
        err[(shape, float(eps))][float(mix)].append(float(e))
        sizes, m = SHAPES[shape]
        snr[(shape, float(eps))] = public_snr(m, float(eps), ResidualLayout(sizes, all_k_way(len(sizes), 3)))
    print("shape eps snr best_t err(best) err(t=0,rp) err(t=1,equal) t_rule err(rule~nearest)")
    for key, by_mix in err.items():
        mean = {t: float(np.mean(v)) for t, v in by_mix.items()}
        best = min(mean, key=mean.get)
        tr = auto_mix(snr[key])
        near = min(mean, key=lambda t: abs(t - tr))
        print(f"{key[0]} {key[1]:g} {snr[key]:.3g} {best:g} {mean[best]:.5f} {mean.get(0.0, np.nan):.5f} "
              f"{mean.get(1.0, np.nan):.5f} {tr:.2f} {mean[near]:.5f}")


if __name__ == "__main__":
    main()

"""Summarize benchmarks/results_allocation/raw.txt: best mixing weight t per (shape, epsilon) and the fitted rule.

Usage: python benchmarks/allocation_fit.py benchmarks/results_allocation/raw.txt
       python benchmarks/allocation_fit.py benchmarks/results_allocation/raw_binary_cube.txt --cube
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
    cube = len(sys.argv) > 2 and sys.argv[2] == "--cube"       # the rule column for AUTO_MIX_CUBE
    rows = [ln.split() for ln in open(sys.argv[1]) if ln[0] != "s"]
    err: dict[tuple[str, float], dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    snr: dict[tuple[str, float], float] = {}
    for shape, eps, mix, _snr_old, _seed, e, _t in rows:
        err[(shape, float(eps))][float(mix)].append(float(e))
        sizes, m = SHAPES[shape]
        snr[(shape, float(eps))] = public_snr(m, float(eps), ResidualLayout(sizes, all_k_way(len(sizes), 3)))
    # grid search of the rule t = tmax / (1 + (snr / c)^p): mean relative regret over the cells,
    # the error at the rule's t read by linear interpolation between the measured mixing weights
    curves = {key: (sorted(by_mix), [float(np.mean(by_mix[t])) for t in sorted(by_mix)]) for key, by_mix in err.items()}
    best_rule, best_regret = None, np.inf
    for tmax in (1.0, 1.5, 2.0):
        for c in (2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0):
            for p in (1.0, 1.5, 2.0, 3.0):
                reg = []
                for key, (ts, es) in curves.items():
                    t = tmax / (1 + (snr[key] / c) ** p)
                    reg.append(np.interp(t, ts, es) / min(es) - 1)
                if np.mean(reg) < best_regret:
                    best_rule, best_regret = (tmax, c, p), float(np.mean(reg))
    print(f"best rule (tmax, snr0, power) = {best_rule}: mean regret {best_regret:.4f}")
    print("shape eps snr best_t err(best) err(t=0,rp) err(t=1,equal) t_rule err(rule~nearest)")
    for key, by_mix in err.items():
        mean = {t: float(np.mean(v)) for t, v in by_mix.items()}
        best = min(mean, key=mean.get)
        tr = auto_mix(snr[key], cube)
        near = min(mean, key=lambda t: abs(t - tr))
        print(f"{key[0]} {key[1]:g} {snr[key]:.3g} {best:g} {mean[best]:.5f} {mean.get(0.0, np.nan):.5f} "
              f"{mean.get(1.0, np.nan):.5f} {tr:.2f} {mean[near]:.5f}")


if __name__ == "__main__":
    main()

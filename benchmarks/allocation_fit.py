"""Summarize the allocation study: best mixing weight t per (shape, epsilon) and the fitted rule.

Usage: python benchmarks/allocation_fit.py benchmarks/results_allocation/raw.txt
       python benchmarks/allocation_fit.py benchmarks/results_allocation/raw_binary_cube.txt --cube
       python benchmarks/allocation_fit.py benchmarks/results_allocation/raw_onehot_*.txt --onehot
       python benchmarks/allocation_fit.py benchmarks/results_allocation/raw_lnnfit_*.txt --cat-lnn

``--onehot`` fits the rule of the categorical default reconstruction with the one-hot PSD step,
``--cat-lnn`` the rule of categorical data reconstructed with the LNN projection (what
``reconstruction="auto"`` runs below ``PSD_MIN_SNR``):
``t = t_max / (1 + (snr / snr_0)^p) / (1 + (snr_lo / snr)^q)`` (``snr_lo = 0``: the plain rule).
The summary's rule column is the rule as shipped (``auto_mix(snr, rule=...)``).
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms.marginals_pipeline import AUTO_MIX, MIX_RULES, auto_mix, public_snr

sys.path.insert(0, "benchmarks")
from allocation_study import SHAPES  # noqa: E402


def rule_t(snr: float, tmax: float, c: float, p: float, lo: float = 0.0, q: float = 1.0) -> float:
    t = tmax / (1 + (snr / c) ** p)
    return t / (1 + (lo / snr) ** q) if lo > 0 else t


def main() -> None:
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    files = [a for a in sys.argv[1:] if not a.startswith("--")]
    rule = "cube" if "--cube" in flags else ("onehot" if "--onehot" in flags else
                                             ("cat-lnn" if "--cat-lnn" in flags else "lnn"))
    falloff = rule in ("onehot", "cat-lnn")
    err: dict[tuple[str, float], dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    snr: dict[tuple[str, float], float] = {}
    for f in files:
        for ln in open(f):
            if not ln.strip() or ln[0] == "s":
                continue
            shape, eps, mix, _snr_old, _seed, e, _t = ln.split()
            err[(shape, float(eps))][float(mix)].append(float(e))
            sizes, m, *_ = SHAPES[shape]
            snr[(shape, float(eps))] = public_snr(m, float(eps), ResidualLayout(sizes, all_k_way(len(sizes), 3)))
    # grid search of the rule: mean relative regret over the cells, the error at the rule's t read by
    # linear interpolation between the measured mixing weights (per cell: the mean over its seeds)
    curves = {key: (sorted(by_mix), [float(np.mean(by_mix[t])) for t in sorted(by_mix)]) for key, by_mix in err.items()}
    lo_grid = ((0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05) if rule == "onehot" else
               (0.001, 0.002, 0.003, 0.005, 0.007, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1))
    q_grid = (1.0, 2.0, 3.0) if rule == "onehot" else (1.0, 2.0, 3.0, 4.0, 6.0)
    lows = ((0.0, 1.0),) + (tuple((lo, q) for lo in lo_grid for q in q_grid) if falloff else ())
    fits = []
    for tmax in (1.0, 1.5, 2.0):
        for c in (2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0):
            for p in (1.0, 1.5, 2.0, 3.0):
                for lo, q in lows:
                    reg = [np.interp(rule_t(snr[key], tmax, c, p, lo, q), ts, es) / min(es) - 1
                           for key, (ts, es) in curves.items()]
                    fits.append((float(np.mean(reg)), (tmax, c, p) + ((lo, q) if falloff else ())))
    fits.sort()
    print(f"best rule {'(tmax, snr0, power, snr_lo, power_lo)' if falloff else '(tmax, snr0, power)'}"
          f" = {fits[0][1]}: mean regret {fits[0][0]:.4f}")
    if falloff:
        plain = min(f for f in fits if f[1][3] == 0.0)
        print(f"best plain rule (snr_lo = 0) = {plain[1]}: mean regret {plain[0]:.4f}")
        # the high-SNR part kept at the lnn rule (fitted on more shapes, up to snr ~1700): only the fall-off
        fixed = min(f for f in fits if f[1][:3] == AUTO_MIX)
        print(f"best fall-off on the lnn rule {AUTO_MIX} = {fixed[1]}: mean regret {fixed[0]:.4f}")
        print(f"the lnn rule itself {AUTO_MIX + (0.0, 1.0)}: mean regret "
              f"{min(f for f in fits if f[1] == AUTO_MIX + (0.0, 1.0))[0]:.4f}")
        # how flat the optimum is: mean regret of every fall-off on the lnn curve (rows snr_lo, columns power_lo)
        grid = {f[1][3:]: f[0] for f in fits if f[1][:3] == AUTO_MIX and f[1][3] > 0}
        print("fall-off on the lnn curve, mean regret: snr_lo \\ power_lo " + " ".join(f"{q:g}" for q in q_grid))
        for lo in lo_grid:
            print(f"  {lo:g} " + " ".join(f"{grid[(lo, q)]:.4f}" for q in q_grid))
    for shipped in MIX_RULES:   # the rules as the library ships them (auto_mix), on these cells
        reg = [np.interp(auto_mix(snr[key], rule=shipped), ts, es) / min(es) - 1 for key, (ts, es) in curves.items()]
        print(f"shipped rule {shipped!r}: mean regret {float(np.mean(reg)):.4f}, max {float(np.max(reg)):.4f}")
    print("shape eps snr best_t err(best) err(t=0,rp) err(t=1,equal) t_rule err(rule~nearest) n_seeds")
    for key, by_mix in sorted(err.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        mean = {t: float(np.mean(v)) for t, v in by_mix.items()}
        best = min(mean, key=mean.get)
        tr = auto_mix(snr[key], rule=rule)
        near = min(mean, key=lambda t: abs(t - tr))
        print(f"{key[0]} {key[1]:g} {snr[key]:.3g} {best:g} {mean[best]:.5f} {mean.get(0.0, np.nan):.5f} "
              f"{mean.get(1.0, np.nan):.5f} {tr:.2f} {mean[near]:.5f} {min(len(v) for v in by_mix.values())}")


if __name__ == "__main__":
    main()

"""Diagnostic: a James-Stein factor per order (2 and 3) on the binary Fourier coefficients before the projection.

Usage: python benchmarks/results_marginals/joint36/order_js.py SHAPE EPS C1,C2,... SEED1,SEED2,...
``c = 0``: no shrinkage (the reference). Prints the mean L1 / m relative to the first ``c``.
"""

from __future__ import annotations

import sys

import numpy as np
from common import load

from sosproj.data.domain import as_dataset
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.rng import as_generator

sys.path.insert(0, "benchmarks")
from joint_study import l1_error  # noqa: E402


class _Tables:
    """The minimal release interface ``l1_error`` reads."""

    def __init__(self, layout: ResidualLayout, r: np.ndarray) -> None:
        self.layout, self.r = layout, r

    def table(self, W: tuple[int, ...]) -> np.ndarray:
        return self.layout.marginal(self.r, W)


name, eps = sys.argv[1], float(sys.argv[2])
cs = [float(x) for x in sys.argv[3].split(",")]
seeds = [int(s) for s in sys.argv[4].split(",")]
X = load(name)
ds = as_dataset(X, None)
m, n = ds.m, ds.n
layout = ResidualLayout.checked([2] * n, all_k_way(n, 3))
spec_args = {"epsilon": eps, "delta": 1e-9, "adjacency": mp.Adjacency.REPLACE_ONE, "calibration": "analytic"}
snr = mp.public_snr(m, eps, layout)
mix = mp.auto_mix(snr, rule=mp.mix_rule(layout, "auto", snr))
sig, spec, _ = mp.noise_scales(layout, "auto", spec_args, m, mix=mix, reconstruction="auto")
res: dict[float, list[float]] = {c: [] for c in cs}
for seed in seeds:
    meas = mp.measure(ds, layout, sig, spec, "auto", as_generator(seed))
    for c in cs:
        r = meas.residuals.copy()
        for order in (2, 3):
            idx = [i for i, A in enumerate(layout.residual_sets) if len(A) == order]
            # the order's whitened coefficients (one number per binary set: y_A(0) 2^{|A|/2} / sigma_A)
            ys = np.array([layout.residual(r, layout.residual_sets[i]).flat[0] * 2 ** (order / 2) / sig[i]
                           for i in idx])
            fac = max(0.0, 1 - c * (len(ys) - 2) / float(ys @ ys)) if c > 0 else 1.0
            for i in idx:
                layout.residual(r, layout.residual_sets[i])[...] *= fac
        rr, _ = mp._joint(mp.Measurement(layout, r, sig, spec, "auto", m), {"tol": mp.default_tolerance(snr)})
        res[c].append(l1_error(_Tables(layout, rr), X))
base = np.mean(res[cs[0]])
print(name, eps, {c: round(np.mean(v) / base, 4) for c, v in res.items()}, flush=True)

r"""Check: stability of projections (Lemma "Stability of projections", constant 1 and 4/3).

Claim. For a closed convex set :math:`S`, :math:`A \in S` and :math:`W` with i.i.d.
:math:`N(0, \sigma^2)` entries,

.. math::

    \mathbb{E}\|\Pi_S(A + W) - \Pi_S(A)\|^2 \le c\,\sigma\, G(S),

with :math:`c = 1` by firm non-expansiveness (the design guide's erratum; per draw
:math:`\|\Pi(A+W)-\Pi(A)\|^2 \le \langle W, \Pi(A+W)-\Pi(A)\rangle` and
:math:`\mathbb{E}\langle W, \Pi(A+W)\rangle \le \sigma G(S)`,
:math:`\mathbb{E}\langle W, \Pi(A)\rangle = 0`); the paper states :math:`c = 4/3`.

Measurement. For each set and each :math:`\sigma` of a grid, the same draws give
:math:`d_i = \|\Pi(A+\sigma Z_i)-\Pi(A)\|^2` and :math:`h_i = h_S(Z_i)`; the verdict
uses the paired differences :math:`d_i - c\sigma h_i` (t-interval of the mean, which
is much tighter than dividing two noisy means), the reported constant is the largest
ratio :math:`\bar d / (\sigma \bar h)` over the grid (with a paired-bootstrap interval).
The per-draw firm non-expansiveness inequality is checked too (a deterministic fact
for exact projections: any violation beyond tolerance fails the check).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.certificates.complexity import ComplexityEstimate
from sosproj.certificates.progress import progress_bar
from sosproj.certificates.registry import Curve, Outcome, bound_verdict, combine, register


def _make_set(name: str, n: int, rng: np.random.Generator) -> tuple[Any, np.ndarray, tuple[int, ...]]:
    """The set, a point ``A`` of it (on its boundary where that is the harder case) and the shape."""
    from sosproj import sets

    shape = (n, n)
    if name == "box":
        A = rng.uniform(-1.0, 1.0, size=shape)
        mask = rng.random(shape) < 0.5
        A[mask] = np.sign(A[mask])  # half the entries on a face of the box
        return sets.Box(-1.0, 1.0), A, shape
    if name == "frobenius":
        return sets.FrobeniusBall(1.0, shape=shape), np.zeros(shape), shape
    if name == "spectraplex":
        v = rng.standard_normal(n)
        v /= np.linalg.norm(v)
        return sets.Spectraplex(1.0, n=n), np.outer(v, v), shape
    if name == "psd_frobenius":
        v = rng.standard_normal(n)
        v /= np.linalg.norm(v)
        return sets.PSDFrobeniusBall(1.0, n=n), 0.5 * np.outer(v, v), shape
    if name == "cosine":
        S = sets.BoundedDiagonalPSD(1.0)  # part of sosproj: a failure is an error, never a skip
        V = rng.standard_normal((n, 3))
        V /= np.linalg.norm(V, axis=1, keepdims=True)
        return S, V @ V.T, shape
    from sosproj.errors import InvalidParameterError

    raise InvalidParameterError(f"unknown set {name!r} for the stability check; use box, frobenius, "
                                "spectraplex, psd_frobenius or cosine")


def _measure(S: Any, A: np.ndarray, shape: tuple[int, ...], sigma: float, trials: int,
             rng: np.random.Generator) -> dict[str, np.ndarray]:
    PA = S.project(A)
    d = np.empty(trials)
    h = np.empty(trials)
    slack = np.empty(trials)
    for i in range(trials):
        Z = rng.standard_normal(shape)
        P = S.project(A + sigma * Z)
        diff = P - PA
        d[i] = float(np.sum(diff * diff))
        slack[i] = sigma * float(np.sum(Z * diff)) - d[i]
        h[i] = float(S.support(Z).value)
    return {"d": d, "h": h, "slack": slack}


@register(
    "stability",
    title="Stability of projections",
    statement="E||P_S(A+W) - P_S(A)||^2 <= c * sigma * G(S) for W ~ N(0, sigma^2 I), A in S; "
              "c = 1 by firm non-expansiveness (the paper states c = 4/3)",
    reference='Lemma "Stability of projections" (Section 5); errata: constant 1 by firm non-expansiveness',
    defaults={"n": 10, "sets": ["box", "frobenius", "spectraplex", "psd_frobenius", "cosine"],
              "sigmas": [0.01, 0.03, 0.1, 0.3, 1.0, 3.0], "trials": 200, "constant": 1.0,
              "paper_constant": 4.0 / 3.0, "confidence": 0.95, "n_boot": 1000},
    quick={"n": 6, "sigmas": [0.03, 0.1, 0.3, 1.0], "trials": 60},
)
def check_stability(p: dict[str, Any], rng: np.random.Generator, progress: bool | None) -> Outcome:
    """Measure the stability ratio over sets and noise levels (see the module docstring)."""
    c = float(p["constant"])
    conf = float(p["confidence"])
    rows: list[dict[str, Any]] = []
    curves: list[Curve] = []
    verdicts = []
    worst_ratio = -np.inf
    worst_at: dict[str, Any] = {}
    total_violations = 0
    with progress_bar(total=len(p["sets"]) * len(p["sigmas"]), desc="stability", enabled=progress) as bar:
        for name in p["sets"]:
            S, A, shape = _make_set(name, int(p["n"]), rng)
            ratios, lows, highs = [], [], []
            for sigma in p["sigmas"]:
                m = _measure(S, A, shape, float(sigma), int(p["trials"]), rng)
                d, h = m["d"], m["h"]
                q = ComplexityEstimate.from_values(d - c * sigma * h, confidence=conf, shape=shape)
                v = bound_verdict(q.ci_low, q.ci_high, 0.0)
                idx = rng.integers(0, d.size, size=(int(p["n_boot"]), d.size))
                boot = d[idx].mean(axis=1) / (sigma * h[idx].mean(axis=1))
                lo, hi = np.quantile(boot, [(1 - conf) / 2, (1 + conf) / 2])
                ratio = float(d.mean() / (sigma * h.mean()))
                tol = 1e-6 * (1.0 + np.abs(d))
                violations = int(np.sum(m["slack"] < -tol))
                total_violations += violations
                if violations:
                    v = "fail"
                verdicts.append(v)
                g = ComplexityEstimate.from_values(h, confidence=conf, shape=shape)
                rows.append({"set": name, "sigma": float(sigma), "E_dist2": float(d.mean()),
                             "sigma_G": float(sigma * g.mean), "ratio": ratio, "ratio_ci": [lo, hi],
                             "G": g.mean, "G_ci": [g.ci_low, g.ci_high],
                             "firm_nonexpansive_violations": violations, "verdict": v})
                ratios.append(ratio)
                lows.append(float(lo))
                highs.append(float(hi))
                if ratio > worst_ratio:
                    worst_ratio = ratio
                    worst_at = {"set": name, "sigma": float(sigma), "ratio_ci": [float(lo), float(hi)]}
                bar.update(1)
            curves.append(Curve(name, list(map(float, p["sigmas"])), ratios, "measured", lows, highs))
    if not rows:
        from sosproj.errors import InvalidParameterError

        raise InvalidParameterError("sets is empty; pass at least one of box, frobenius, spectraplex, "
                                    "psd_frobenius, cosine")
    sig = list(map(float, p["sigmas"]))
    curves.append(Curve(f"bound c = {c:g}", sig, [c] * len(sig), "theory"))
    curves.append(Curve(f"paper c = {float(p['paper_constant']):.3g}", sig,
                        [float(p["paper_constant"])] * len(sig), "naive"))
    verdict = combine(verdicts)
    reason = (f"largest measured ratio E||P(A+W)-P(A)||^2 / (sigma G(S)) = {worst_ratio:.3f} "
              f"({worst_at.get('set')}, sigma={worst_at.get('sigma')}) against c = {c:g}; "
              f"{total_violations} per-draw firm non-expansiveness violations")
    measured = {"constant": worst_ratio, "constant_ci": worst_at.get("ratio_ci"), "worst": worst_at,
                "firm_nonexpansive_violations": total_violations}
    theoretical = {"constant": c, "paper_constant": float(p["paper_constant"]),
                   "holds_with_paper_constant": bool(worst_ratio <= float(p["paper_constant"]))}
    return Outcome(verdict, reason, measured, theoretical, rows, curves, xlabel="sigma",
                   ylabel="E||P(A+W)-P(A)||^2 / (sigma G(S))")

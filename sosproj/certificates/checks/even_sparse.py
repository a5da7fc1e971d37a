r"""Check: the even-k sparse fact (Fact "sparse vector certificates", d'Orsi et al. 2020).

Claim. For :math:`W` with i.i.d. :math:`N(0,1)` entries and
:math:`\mathcal{A}_t = \{X \succeq 0,\ \operatorname{tr} X = 1,\ \|X\|_1 \le t\}`
(:math:`\|X\|_1` the entrywise :math:`\ell_1` norm), with high probability

.. math::

    \max_{X \in \mathcal{A}_t} \langle X, W \rangle \le O\big(t \sqrt{\log(n / t^2)}\big).

This is what bounds :math:`G` of the sparse relaxation for even :math:`k` (Theorem
"sos sparse certificates", even case, via the matrix flattening).

Measurement. The support value (an SDP, solved with cvxpy) averaged over draws on a
grid of :math:`(n, t)` with :math:`n / t^2 \ge` ``min_ratio`` (4 by default: where
:math:`\log(n/t^2)` approaches 0 the rate degenerates while the value does not, a
pre-asymptotic regime the :math:`O(\cdot)` says nothing about); the implied constant
:math:`G / (t\sqrt{\log(n/t^2)})` (its spread over the grid says whether the rate has
the right shape) and the fitted exponent of :math:`t` after dividing out
:math:`\sqrt{\log(n/t^2)}` (theory 1). The sparse-blind comparison is the spectraplex
(no :math:`\ell_1` constraint), whose value :math:`\mathbb{E}\lambda_{\max}(\mathrm{sym} W)
\approx \sqrt{2n}` does not depend on :math:`t`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.certificates.complexity import gaussian_complexity
from sosproj.certificates.progress import progress_bar
from sosproj.certificates.rates import fit_rate
from sosproj.certificates.registry import Curve, Outcome, combine, exponent_verdict, register
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult, symmetrize


class SparseSpectraplex(ConvexSet):
    r"""The set :math:`\{X \succeq 0,\ \operatorname{tr} X = 1,\ \sum_{ij}|X_{ij}| \le t\}` (cvxpy-backed).

    Used by this check only; support and projection are cvxpy solves (reference
    quality, small ``n``).

    >>> S = SparseSpectraplex(4, t=1.0)
    >>> round(S.support(np.diag([0.0, 3.0, 1.0, 2.0])).value, 4)
    3.0
    """

    matrix_set = True

    def __init__(self, n: int, t: float) -> None:
        self.shape = (int(n), int(n))
        self.t = float(t)

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """cvxpy description of the set."""
        import cvxpy as cp

        return [X >> 0, cp.trace(X) == 1, cp.sum(cp.abs(X)) <= self.t]

    def _support(self, W: np.ndarray, *, solver: str = "CLARABEL", tol: float = 1e-7) -> SupportResult:
        from sosproj.sets.reference import cvxpy_support

        res = cvxpy_support(self, W, solver=solver, tol=tol)
        status = res.info.get("status", "optimal")
        info = dict(res.info, converged=status == "optimal")
        return SupportResult(res.value, res.maximizer, info)

    def _project(self, Y: np.ndarray, *, solver: str | None = None, tol: float = 1e-10
                 ) -> tuple[np.ndarray, ProjectionInfo]:
        from sosproj.sets.reference import cvxpy_project

        return cvxpy_project(self, Y, solver=solver, tol=tol), ProjectionInfo("cvxpy", exact=True)

    def _violation(self, X: np.ndarray) -> float:
        w = np.linalg.eigvalsh(symmetrize(X))
        return max(float(np.max(np.abs(X - X.T))), max(0.0, -float(w[0])),
                   abs(float(np.trace(X)) - 1.0), max(0.0, float(np.abs(X).sum()) - self.t))


@register(
    "even_sparse",
    title="Even-k sparse fact (sparse spectraplex)",
    statement="max over {X PSD, tr X = 1, ||X||_1 <= t} of <X, W> <= O(t sqrt(log(n/t^2)))",
    reference='Fact "sparse vector certificates" (Appendix, from d\'Orsi et al. 2020); Theorem '
              '"sos sparse certificates", even k',
    defaults={"ns": [32, 64], "ts": [1.0, 1.5, 2.0, 2.5, 3.0, 4.0], "trials": 20, "min_ratio": 4.0, "exponent": 1.0,
              "exponent_slack": 0.15, "confidence": 0.95, "n_boot": 1000},
    quick={"ns": [32], "ts": [1.0, 1.5, 2.0, 2.5], "trials": 10},
)
def check_even_sparse(p: dict[str, Any], rng: np.random.Generator, progress: bool | None) -> Outcome:
    """Sweep ``(n, t)`` and fit the exponent of ``t`` against ``t sqrt(log(n/t^2))``."""
    rows, curves, verdicts = [], [], []
    fits = {}
    b = float(p["exponent"])
    # the rate is meaningful where log(n/t^2) is not close to 0: keep n / t^2 >= min_ratio
    grid = [(int(n), float(t)) for n in p["ns"] for t in p["ts"] if int(n) / float(t) ** 2 >= float(p["min_ratio"])]
    with progress_bar(total=len(grid), desc="even sparse", enabled=progress) as bar:
        for n in [int(n) for n in p["ns"]]:
            ts = [t for (m, t) in grid if m == n]
            samples, means, lows, highs = [], [], [], []
            for t in ts:
                est = gaussian_complexity(SparseSpectraplex(n, t), trials=int(p["trials"]), rng=rng,
                                          confidence=float(p["confidence"]), progress=False)
                rate = t * np.sqrt(np.log(n / t ** 2))
                lam = np.mean([np.linalg.eigvalsh(symmetrize(rng.standard_normal((n, n))))[-1]
                               for _ in range(int(p["trials"]))])
                rows.append({"n": n, "t": t, "G": est.mean, "G_ci": [est.ci_low, est.ci_high],
                             "rate": rate, "implied_constant": est.mean / rate,
                             "spectraplex_G": float(lam)})
                samples.append(est.values)
                means.append(est.mean)
                lows.append(est.ci_low)
                highs.append(est.ci_high)
                bar.update(1)
            if len(ts) >= 2:
                fit = fit_rate(ts, samples=samples, log_factor=lambda t, n=n: np.sqrt(np.log(n / t ** 2)),
                               n_boot=int(p["n_boot"]), confidence=float(p["confidence"]), rng=rng)
                fits[n] = fit
                verdicts.append(exponent_verdict(fit.exponent_ci[0], fit.exponent, b,
                                                 float(p["exponent_slack"])))
            curves.append(Curve(f"measured, n={n}", ts, means, "measured", lows, highs))
            cfit = float(np.mean([r["implied_constant"] for r in rows if r["n"] == n]))
            curves.append(Curve(f"{cfit:.2f} t sqrt(log(n/t^2)), n={n}", ts,
                                [cfit * t * np.sqrt(np.log(n / t ** 2)) for t in ts], "theory"))
            curves.append(Curve(f"spectraplex (t-free), n={n}", ts,
                                [r["spectraplex_G"] for r in rows if r["n"] == n], "naive"))
    if not verdicts:
        return Outcome("skip", "no n with at least two t values satisfying n / t^2 >= min_ratio")
    consts = [r["implied_constant"] for r in rows]
    verdict = combine(verdicts)
    expo = {str(n): {"exponent": f.exponent, "exponent_ci": list(f.exponent_ci)} for n, f in fits.items()}
    reason = ("implied constant G/(t sqrt(log(n/t^2))) in [" f"{min(consts):.3f}, {max(consts):.3f}]; "
              + "; ".join(f"n={n}: exponent of t {f.exponent:.3f} [{f.exponent_ci[0]:.3f}, "
                          f"{f.exponent_ci[1]:.3f}] vs {b:g}" for n, f in fits.items()))
    last = fits[max(fits)]
    measured = {"constant": max(consts), "constant_min": min(consts), "exponent": last.exponent,
                "exponent_ci": list(last.exponent_ci), "exponent_at_n": max(fits), "exponents_by_n": expo}
    theoretical = {"exponent": b, "rate": "t sqrt(log(n/t^2))"}
    return Outcome(verdict, reason, measured, theoretical, rows, curves, "t", "G")

r"""Rate fitting: log-log regression with bootstrap confidence intervals.

A measured quantity :math:`y(n)` that scales as :math:`C n^{b}` satisfies
:math:`\log y = \log C + b \log n`; :func:`fit_rate` fits :math:`(\log C, b)` by least
squares and attaches percentile-bootstrap intervals to the exponent :math:`b` and the
constant :math:`C`.

Two bootstraps:

* ``samples`` given (one array of per-trial measurements per ``x``, as Monte Carlo
  estimates produce): resample the trials within each point, refit (this propagates
  the Monte Carlo error, and works with as few as two points);
* only ``y`` given: resample the regression residuals (needs >= 3 points).

Known logarithmic factors are divided out before fitting (``log_factor``), so that
e.g. :math:`(n^3 \cdot 3\ln n)^{1/4}` is fitted as :math:`C n^{3/4}` on
:math:`y / (3 \ln n)^{1/4}`.

Examples
--------
>>> import numpy as np
>>> from sosproj.certificates import fit_rate
>>> n = np.array([10, 20, 40, 80])
>>> fit = fit_rate(n, 3.0 * n ** 1.5)
>>> round(fit.exponent, 6), round(fit.constant, 6)
(1.5, 3.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.rng import RngLike, as_generator
from sosproj.validation import check_array, check_int


@dataclass(frozen=True)
class RateFit:
    r"""Result of :func:`fit_rate`: :math:`y \approx C\, x^{b}` (after dividing out ``log_factor``).

    Attributes
    ----------
    exponent, exponent_ci : fitted :math:`b` and its bootstrap interval.
    constant, constant_ci : fitted :math:`C` and its bootstrap interval.
    x, y : the fitted points (``y`` already divided by the log factor).
    confidence : level of the intervals; ``n_boot``: bootstrap replicates.
    method : ``"trials"`` (resampling within points), ``"residual"`` or ``"none"``.
    r2 : coefficient of determination of the log-log fit.

    >>> f = fit_rate([1, 2, 4], [2.0, 4.0, 8.0])
    >>> f.consistent_with(1.0), f.predict(8.0)
    (True, 16.0)
    """

    exponent: float
    exponent_ci: tuple[float, float]
    constant: float
    constant_ci: tuple[float, float]
    x: np.ndarray = field(repr=False, compare=False)
    y: np.ndarray = field(repr=False, compare=False)
    confidence: float = 0.95
    n_boot: int = 0
    method: str = "none"
    r2: float = 1.0

    def predict(self, x: Any) -> Any:
        """The fitted curve :math:`C x^{b}` (without the log factor)."""
        out = self.constant * np.asarray(x, dtype=float) ** self.exponent
        return float(out) if np.ndim(out) == 0 else out

    def consistent_with(self, exponent: float, slack: float = 0.0) -> bool:
        """Whether ``exponent`` lies in the exponent interval widened by ``slack``."""
        lo, hi = self.exponent_ci
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return bool(abs(self.exponent - exponent) <= slack)
        return bool(lo - slack <= exponent <= hi + slack)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view.

        >>> sorted(fit_rate([1, 2], [1.0, 2.0]).as_dict())[:3]
        ['confidence', 'constant', 'constant_ci']
        """
        return {"exponent": self.exponent, "exponent_ci": list(self.exponent_ci),
                "constant": self.constant, "constant_ci": list(self.constant_ci),
                "confidence": self.confidence, "n_boot": self.n_boot, "method": self.method,
                "r2": self.r2, "x": self.x.tolist(), "y": self.y.tolist()}


def _ols(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of the least-squares line through ``(lx, ly)``."""
    xm = lx.mean()
    sxx = float(((lx - xm) ** 2).sum())
    slope = float(((lx - xm) * (ly - ly.mean())).sum() / sxx)
    return slope, float(ly.mean() - slope * xm)


def fit_rate(x: Sequence[float], y: Sequence[float] | None = None, *,
             samples: Sequence[Sequence[float]] | None = None,
             log_factor: Callable[[np.ndarray], np.ndarray] | None = None,
             n_boot: int = 2000, confidence: float = 0.95, rng: RngLike = 0) -> RateFit:
    r"""Fit :math:`y \approx C x^{b}` by least squares in log-log coordinates, with bootstrap CIs.

    Parameters
    ----------
    x : positive abscissae (at least two distinct values), e.g. the dimension ``n``.
    y : positive values at ``x`` (omit when ``samples`` is given: ``y`` is then the means).
    samples : per-point arrays of i.i.d. measurements (>= 2 each); the bootstrap then
        resamples within each point.
    log_factor : callable ``f(x)``; the fit is done on ``y / f(x)`` (e.g. ``lambda n: np.log(n)``).
    n_boot : bootstrap replicates (0 disables the intervals: they are then ``nan``).
    confidence : interval level in (0, 1).
    rng : seed of the bootstrap (deterministic by default).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> n = np.array([8, 16, 32, 64])
    >>> draws = [n_ ** 0.75 * (1 + 0.05 * rng.standard_normal(50)) for n_ in n]
    >>> fit = fit_rate(n, samples=draws, n_boot=500)
    >>> fit.consistent_with(0.75), fit.method
    (True, 'trials')
    """
    xa = check_array(x, "x", finite=False).ravel()
    if xa.size < 2 or np.unique(xa).size < 2:
        raise InvalidInputError("x must hold at least two distinct values to fit a rate")
    if not np.all(np.isfinite(xa)) or np.any(xa <= 0):
        raise InvalidInputError("x must be positive and finite (it is fitted on a log scale)")
    n_boot = check_int(n_boot, "n_boot", minimum=0)
    if not 0.0 < float(confidence) < 1.0:
        raise InvalidParameterError("confidence must lie in the open interval (0, 1)")
    scale = np.ones_like(xa) if log_factor is None else np.asarray(log_factor(xa), dtype=float)
    if scale.shape != xa.shape or not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        raise InvalidParameterError("log_factor(x) must return positive finite values, one per x")

    groups: list[np.ndarray] | None = None
    if samples is not None:
        if y is not None:
            raise InvalidParameterError("pass either y or samples, not both")
        groups = [check_array(s, "samples entry", finite=False, allow_empty=True).ravel() for s in samples]
        if len(groups) != xa.size:
            raise InvalidInputError("samples must hold one array of measurements per x")
        if any(g.size < 2 or not np.all(np.isfinite(g)) for g in groups):
            raise InvalidInputError("each entry of samples needs >= 2 finite measurements")
        ya = np.array([g.mean() for g in groups])
    else:
        if y is None:
            raise InvalidParameterError("pass y (values at x) or samples (measurements per x)")
        ya = check_array(y, "y", finite=False).ravel()
        if ya.shape != xa.shape:
            raise InvalidInputError("y must have one value per x")
    if not np.all(np.isfinite(ya)) or np.any(ya <= 0):
        raise InvalidInputError("the values to fit must be positive and finite (log-log fit)")

    lx = np.log(xa)
    ly = np.log(ya / scale)
    b, a = _ols(lx, ly)
    resid = ly - (a + b * lx)
    sst = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - float((resid ** 2).sum()) / sst if sst > 0 else 1.0

    method = "none"
    b_ci = (float("nan"), float("nan"))
    c_ci = (float("nan"), float("nan"))
    if n_boot > 0 and (groups is not None or xa.size >= 3):
        gen = as_generator(rng)
        boots = np.empty((n_boot, 2))
        if groups is not None:
            method = "trials"
            means = np.empty((n_boot, xa.size))
            for j, g in enumerate(groups):
                idx = gen.integers(0, g.size, size=(n_boot, g.size))
                means[:, j] = g[idx].mean(axis=1)
            ok = np.all(means > 0, axis=1)
            means = means[ok]
            lym = np.log(means / scale)
            xm = lx.mean()
            sxx = float(((lx - xm) ** 2).sum())
            slopes = ((lx - xm) * (lym - lym.mean(axis=1, keepdims=True))).sum(axis=1) / sxx
            boots = np.column_stack([slopes, lym.mean(axis=1) - slopes * xm])
        else:
            method = "residual"
            idx = gen.integers(0, xa.size, size=(n_boot, xa.size))
            ly_b = (a + b * lx)[None, :] + resid[idx]
            xm = lx.mean()
            sxx = float(((lx - xm) ** 2).sum())
            slopes = ((lx - xm) * (ly_b - ly_b.mean(axis=1, keepdims=True))).sum(axis=1) / sxx
            boots = np.column_stack([slopes, ly_b.mean(axis=1) - slopes * xm])
        alpha = (1.0 - float(confidence)) / 2.0
        lo, hi = np.quantile(boots, [alpha, 1.0 - alpha], axis=0)
        b_ci = (float(lo[0]), float(hi[0]))
        c_ci = (float(np.exp(lo[1])), float(np.exp(hi[1])))
    return RateFit(float(b), b_ci, float(np.exp(a)), c_ci, xa, ya / scale, float(confidence),
                   n_boot if method != "none" else 0, method, float(r2))


__all__ = ["RateFit", "fit_rate"]

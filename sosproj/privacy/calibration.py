r"""Noise calibration for the Gaussian mechanism.

Three calibrations of the standard deviation :math:`\sigma` of i.i.d. Gaussian
noise added to a query of :math:`\ell_2`-sensitivity :math:`\Delta`:

``"analytic"`` (default)
    The analytic Gaussian mechanism (Balle and Wang, ICML 2018, Theorem 8): the
    smallest :math:`\sigma` with

    .. math::
       \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
       - e^{\varepsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
       \le \delta ,

    the exact privacy profile of the Gaussian mechanism, valid for every
    :math:`\varepsilon > 0`. Solved by Brent's root finding (:func:`brent_root`, the
    iterates of ``scipy.optimize.brentq`` without importing ``scipy.optimize``)
    on the logarithm of the profile, evaluated with ``scipy.special.log_ndtr``
    so that it stays accurate for :math:`\delta` down to :math:`10^{-300}`.

``"paper"``
    :math:`\sigma = \Delta\sqrt{2\ln(2/\delta)}/\varepsilon`, the paper's
    Gaussian-mechanism lemma (used in its Algorithms 1-2), stated for
    :math:`0 < \varepsilon \le 1` and refused above: at :math:`\varepsilon = 10,
    \delta = 10^{-3}` it gives 0.390 where the exact minimum is 0.406, i.e. it
    does not give the claimed guarantee.

``"classical"``
    :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon` (Dwork and Roth
    2014, Theorem A.1), valid only for :math:`\varepsilon < 1`; refused otherwise.

The analytic :math:`\sigma` is never larger than the other two (both are
sufficient conditions for the same profile inequality).

Examples
--------
>>> from sosproj.privacy.calibration import gaussian_sigma
>>> s = gaussian_sigma(1.0, 1e-6)
>>> round(s, 6)
4.224679
>>> s < gaussian_sigma(1.0, 1e-6, calibration="paper")
True
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import log_ndtr

from sosproj.errors import InvalidParameterError
from sosproj.privacy.spec import CALIBRATIONS, PrivacySpec
from sosproj.validation import check_epsilon, check_positive


def gaussian_log_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    r"""Natural log of the exact privacy profile :math:`\delta(\varepsilon)` of the Gaussian mechanism.

    :math:`\delta(\varepsilon) = \Phi(a) - e^{\varepsilon}\Phi(b)` with
    :math:`a = \Delta/(2\sigma) - \varepsilon\sigma/\Delta`,
    :math:`b = -\Delta/(2\sigma) - \varepsilon\sigma/\Delta` (Balle and Wang 2018,
    Theorem 8), computed as :math:`\log\Phi(a) + \log(1 - e^{\varepsilon + \log\Phi(b) - \log\Phi(a)})`.

    >>> round(math.exp(gaussian_log_delta(4.224678942, 1.0)), 9)
    1e-06
    """
    return _log_delta(check_positive(sigma, "sigma"), check_epsilon(epsilon),
                      check_positive(sensitivity, "sensitivity"))


def _log_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """:func:`gaussian_log_delta` without validation (the root finder's inner loop)."""
    r = sensitivity / sigma
    a = 0.5 * r - epsilon / r
    b = -0.5 * r - epsilon / r
    la = float(log_ndtr(a))
    d = epsilon + float(log_ndtr(b)) - la
    if d >= 0.0:  # cannot happen mathematically; guards round-off at sigma -> 0
        return -math.inf
    return la + math.log(-math.expm1(d))


def gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    r"""Exact :math:`\delta(\varepsilon)` of the Gaussian mechanism with noise ``sigma``.

    >>> gaussian_delta(4.224678942, 1.0) < 1.0000001e-6
    True
    """
    return math.exp(gaussian_log_delta(sigma, epsilon, sensitivity))


def brent_root(f: Callable[[float], float], xa: float, xb: float, xtol: float = 2e-12,
               rtol: float = 4 * np.finfo(float).eps, maxiter: int = 100) -> float:
    r"""A root of the scalar ``f`` in the bracket ``[xa, xb]`` (``f(xa)``, ``f(xb)`` of opposite signs) by
    Brent's method (R. P. Brent, *Algorithms for Minimization without Derivatives*, 1973, ch. 4).

    A line-by-line port of SciPy's C ``brentq`` (``scipy/optimize/Zeros/brentq.c``: inverse quadratic
    interpolation or the secant step when it lands well inside the bracket, bisection otherwise), so it
    takes the same iterates and returns the same float as ``scipy.optimize.brentq(f, xa, xb, xtol, rtol,
    maxiter)`` (tested); it exists because importing ``scipy.optimize`` costs about 65 ms of CPU, a fifth
    of a small private release. The returned ``x`` is within ``xtol + rtol |x|`` of a sign change of ``f``.

    Raises :class:`~sosproj.errors.InvalidParameterError` when the bracket has no sign change, and
    :class:`RuntimeError` when ``maxiter`` iterations do not converge (never returned as a root).

    >>> round(brent_root(lambda x: x * x - 2.0, 0.0, 2.0, xtol=1e-14), 12)
    1.414213562373
    """
    if not (xtol > 0 and rtol >= 4 * np.finfo(float).eps and maxiter >= 0):
        raise InvalidParameterError("brent_root: need xtol > 0, rtol >= 4 eps and maxiter >= 0")
    xpre, xcur = float(xa), float(xb)
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = float(f(xpre)), float(f(xcur))
    if fpre == 0.0:
        return xpre
    if fcur == 0.0:
        return xcur
    if math.copysign(1.0, fpre) == math.copysign(1.0, fcur):
        raise InvalidParameterError("brent_root: f(xa) and f(xb) must have opposite signs")
    for _ in range(maxiter):
        if fpre != 0.0 and fcur != 0.0 and math.copysign(1.0, fpre) != math.copysign(1.0, fcur):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0.0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:                                       # interpolate (secant)
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:                                                  # extrapolate (inverse quadratic)
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):
                spre, scur = scur, stry                            # good short step
            else:
                spre = scur = sbis                                 # bisect
        else:
            spre = scur = sbis                                     # bisect
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = float(f(xcur))
    raise RuntimeError(f"brent_root: no convergence in {maxiter} iterations")


def _log_sigma_bracket(f: Callable[[float], float], epsilon: float, delta: float) -> tuple[float, float]:
    """``(lo, hi)`` in log(sigma) with ``f(lo) > 0 >= f(hi)`` for ``f`` = log profile minus log delta (which
    decreases strictly in sigma), widened from the classical and paper sigmas."""
    lo = math.log(max(1e-3, math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon) * 1e-3)
    hi = math.log(math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon + 10.0)
    while f(lo) <= 0.0:
        lo -= 5.0
    while f(hi) > 0.0:
        hi += 2.0
    return lo, hi


def _analytic_sigma(epsilon: float, delta: float) -> float:
    """Smallest sigma (sensitivity 1) whose exact profile at epsilon is <= delta."""
    log_delta = math.log(delta)

    def f(log_sigma: float) -> float:
        return _log_delta(math.exp(log_sigma), epsilon, 1.0) - log_delta

    lo, hi = _log_sigma_bracket(f, epsilon, delta)
    x = brent_root(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    sigma = math.exp(x)
    # Brent's method returns a point within tolerance on either side, and the profile itself is
    # evaluated with ~1e-12 relative round-off: step up by a relative 1e-10 (a change of
    # sigma far below any practical concern) so the guarantee holds in exact arithmetic.
    sigma *= 1.0 + 1e-10
    while _log_delta(sigma, epsilon, 1.0) > log_delta:
        sigma *= 1.0 + 1e-10
    return sigma


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0,
                   calibration: str = "analytic") -> float:
    r"""Standard deviation of Gaussian noise giving :math:`(\varepsilon, \delta)`-DP.

    Parameters
    ----------
    epsilon : privacy loss, > 0.
    delta : failure probability, in (0, 1).
    sensitivity : :math:`\ell_2`-sensitivity :math:`\Delta` of the released quantity
        under the mechanism's adjacency, > 0 (sigma scales linearly with it).
    calibration : ``"analytic"`` (Balle-Wang, exact), ``"paper"`` or ``"classical"``
        (see the module docstring).

    Returns
    -------
    float : sigma.

    >>> round(gaussian_sigma(0.5, 1e-5, 2.0, calibration="classical"), 4)
    19.3792
    """
    spec = PrivacySpec.create(epsilon=epsilon, delta=delta, sensitivity=sensitivity, calibration=calibration)
    return _sigma(spec.epsilon, spec.delta, spec.sensitivity, spec.calibration)


def spec_sigma(spec: PrivacySpec) -> float:
    r"""Standard deviation of the Gaussian noise for a (validated) :class:`~sosproj.privacy.spec.PrivacySpec`.

    The mechanisms' route: the spec was validated once at the door
    (:meth:`PrivacySpec.create`), so its fields are trusted here; the calibration's own
    range rules (``"paper"``: epsilon <= 1, ``"classical"``: epsilon < 1) are checked.

    >>> spec = PrivacySpec.create(epsilon=0.5, delta=1e-5, sensitivity=2.0, calibration="classical")
    >>> round(spec_sigma(spec), 4)
    19.3792
    """
    return _sigma(spec.epsilon, spec.delta, spec.sensitivity, spec.calibration)


def _sigma(epsilon: float, delta: float, sensitivity: float, calibration: str) -> float:
    """The calibration rules on validated parameters (shared by :func:`gaussian_sigma` and :func:`spec_sigma`)."""
    if calibration == "paper":
        if epsilon > 1.0:
            raise InvalidParameterError(
                "calibration='paper' is only valid for epsilon <= 1 (the paper's Gaussian-mechanism "
                "lemma assumes 0 < epsilon <= 1; above that it under-noises, e.g. at epsilon=10); "
                "use calibration='analytic' (exact for every epsilon)")
        return sensitivity * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon
    if calibration == "classical":
        if epsilon >= 1.0:
            raise InvalidParameterError(
                "calibration='classical' is only valid for epsilon < 1 (Dwork-Roth Theorem A.1); "
                "use calibration='analytic' (exact for every epsilon)")
        return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    return sensitivity * _analytic_sigma(epsilon, delta)


__all__ = ["gaussian_sigma", "spec_sigma", "gaussian_delta", "gaussian_log_delta", "CALIBRATIONS"]

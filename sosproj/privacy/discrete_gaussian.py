r"""Exact, vectorized sampling and calibration of the discrete Gaussian (Canonne, Kamath and Steinke 2020).

The discrete Gaussian :math:`\mathcal N_{\mathbb Z}(0, \sigma^2)` has pmf
:math:`P[X = x] \propto \exp(-x^2 / (2\sigma^2))` on the integers. Added to an
integer-valued query (counts, contingency tables) it gives a release that is
exactly integer, so none of the floating-point attacks on continuous noise
(Mironov 2012; see :mod:`sosproj.privacy.rounding`) apply.

Sampler
-------
CKS20, Algorithms 1-3, run on whole numpy batches with **integer arithmetic
only** (no floating-point number enters a random decision):

1. :math:`\mathrm{Bernoulli}(e^{-\gamma})` for rational :math:`\gamma = n/d`
   (Algorithm 1): the integer part by :math:`\lfloor\gamma\rfloor` independent
   :math:`\mathrm{Bernoulli}(e^{-1})` trials, the fractional part by the series
   trick (:math:`K` = first index with a failed :math:`\mathrm{Bernoulli}(\gamma/K)`,
   output :math:`K` odd); :math:`\mathrm{Bernoulli}(\gamma/K)` is drawn as
   :math:`[U < n] \wedge [V = 0]` with :math:`U` uniform on :math:`\{0..d-1\}` and
   :math:`V` uniform on :math:`\{0..K-1\}`.
2. Discrete Laplace with integer scale :math:`t` (Algorithm 2).
3. Rejection: with :math:`t = \lfloor\sigma\rfloor + 1`, accept :math:`Y \sim
   \mathrm{DLap}(t)` with probability :math:`\exp(-(|Y| - \sigma^2/t)^2 / (2\sigma^2))`
   (Algorithm 3), an exact rational exponent when :math:`\sigma^2 = p/q` is rational.

Numbers that fit are processed as ``int64``; a batch whose exponents could
overflow 62 bits switches to Python integers (object arrays), so the sampler
stays exact for every :math:`\sigma`. A float ``sigma2`` is first rounded **up**
to a multiple of :math:`2^{-20}` (:func:`rational_sigma2`), which only adds noise.
The randomness is the numpy generator's uniform integers (PCG64 by default): the
algorithm is exact given ideal uniform integers.

Calibration
-----------
:func:`discrete_gaussian_sigma` offers

* ``method="zcdp"`` (default; valid for vector-valued integer queries with
  :math:`\ell_2`-sensitivity :math:`\Delta`): the discrete Gaussian is
  :math:`\Delta^2/(2\sigma^2)`-zCDP (CKS20, Thm. 14), converted to
  :math:`(\varepsilon, \delta)` with CKS20 Cor. 13; the result is the smallest
  such :math:`\sigma`;
* ``method="exact"`` (a single integer count, integer sensitivity): the exact
  privacy profile of CKS20 Thm. 7, :math:`\delta = P[X > \varepsilon\sigma^2/\Delta - \Delta/2]
  - e^{\varepsilon} P[X > \varepsilon\sigma^2/\Delta + \Delta/2]`, evaluated as a sum
  of positive terms in log space.

Examples
--------
>>> import numpy as np
>>> x = sample_discrete_gaussian((4,), 2.5, rng=0)
>>> x.dtype, x.shape
(dtype('int64'), (4,))
>>> from sosproj.testing import noise_disabled
>>> with noise_disabled():
...     sample_discrete_gaussian((3,), 2.5, rng=0)
array([0, 0, 0])
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import logsumexp

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.rng import RngLike, as_generator
from sosproj.testing import noise_is_disabled
from sosproj.validation import check_array, check_choice, check_int, check_nonnegative, check_privacy_params

_DENOM_BITS = 20
_SAFE = 2 ** 62


# ------------------------------------------------------------------ parameters


def rational_sigma2(sigma2: Any) -> Fraction:
    r"""The exact rational variance parameter the sampler uses for ``sigma2``.

    Integers and :class:`fractions.Fraction` are used as given; floats are rounded
    **up** to a multiple of :math:`2^{-m}` (more noise, never less privacy), with
    :math:`m = 20` unless :math:`\sigma` is so large that a coarser grid keeps the
    sampler in 64-bit integers (the relative change stays below :math:`10^{-6}`).

    >>> rational_sigma2(2.5)
    Fraction(5, 2)
    >>> rational_sigma2(Fraction(1, 3))
    Fraction(1, 3)
    >>> rational_sigma2(0.1) >= Fraction(1, 10)
    True
    """
    if isinstance(sigma2, (bool, np.bool_)):
        raise InputTypeError("sigma2 must be a positive number (int, float or Fraction); got a bool")
    if isinstance(sigma2, Fraction):
        value = sigma2
    elif isinstance(sigma2, (Integral, np.integer)):
        value = Fraction(int(sigma2))
    elif isinstance(sigma2, (Real, np.floating)):
        f = float(sigma2)
        if not math.isfinite(f):
            raise InvalidParameterError("sigma2 must be finite; pass a positive finite variance")
        if f <= 0:
            raise InvalidParameterError("sigma2 must be > 0 (the variance parameter); pass e.g. sigma2=4.0")
        exact = Fraction(f)
        # grid 2^-m, m <= 20, as fine as keeps the sampler's exponents in int64 (2 p q t^2 < 2^61)
        t = math.isqrt(math.ceil(exact)) + 1
        m = _DENOM_BITS
        while m > 0 and (2 * math.ceil(exact * 2 ** m) * 2 ** m * t * t >= 2 ** 61
                         or 12 * t * t * 2 ** m >= 2 ** 31):
            m -= 1
        q = 2 ** m
        value = Fraction(math.ceil(exact * q), q)
    else:
        raise InputTypeError(f"sigma2 must be a positive number (int, float or Fraction); "
                             f"got {type(sigma2).__name__}")
    if value <= 0:
        raise InvalidParameterError("sigma2 must be > 0 (the variance parameter); pass e.g. sigma2=4.0")
    return value


def _shape_tuple(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (Integral, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (int(shape),)
    try:
        out = tuple(check_int(s, "shape", minimum=0) for s in shape)
    except TypeError as exc:
        raise InputTypeError("shape must be an int or a tuple of non-negative ints") from exc
    return out


# ------------------------------------------------------------ exact Bernoullis


def _uniform_below(bound: int, size: int, gen: np.random.Generator) -> np.ndarray:
    """``size`` uniform integers in [0, bound): int64 if bound < 2^62, else exact Python ints."""
    if bound < _SAFE:
        return gen.integers(0, bound, size=size, dtype=np.int64)
    nbits = bound.bit_length()
    chunks = (nbits + 61) // 62
    out = np.empty(size, dtype=object)
    todo = np.arange(size)
    while todo.size:  # vectorized rejection on nbits uniform bits; acceptance >= 1/2
        c = gen.integers(0, 2 ** 62, size=(todo.size, chunks), dtype=np.int64).astype(object)
        u = c[:, 0].copy()
        for j in range(1, chunks):
            u = u + c[:, j] * (1 << (62 * j))
        u = u % (1 << nbits)
        ok = np.asarray(u < bound, dtype=bool)
        out[todo[ok]] = u[ok]
        todo = todo[~ok]
    return out


def _bern_exp_neg_frac(num: np.ndarray, den: int, gen: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) for integers 0 <= num <= den, elementwise (CKS20 Alg. 1, gamma <= 1).

    K = first k >= 1 with a failed Bernoulli(gamma/k); output [K odd]. All elements still
    running share the same k, and Bernoulli(num/(den k)) is one uniform integer below den*k.
    """
    n = num.shape[0]
    result = np.empty(n, dtype=bool)
    idx = np.arange(n)
    cur = num
    k = 1
    while idx.size:
        if cur.dtype != object and den * k < _SAFE:
            a = gen.integers(0, den * k, size=idx.size, dtype=np.int64) < cur
        else:
            a = (np.asarray(_uniform_below(den, idx.size, gen) < cur, dtype=bool)
                 & (gen.integers(0, k, size=idx.size) == 0))
        result[idx[~a]] = (k % 2) == 1
        idx = idx[a]
        cur = cur[a]
        k += 1
    return result


def _bern_exp_minus_one(n: int, gen: np.random.Generator) -> np.ndarray:
    """Bernoulli(e^-1): the gamma = 1 case of Alg. 1 (step k survives with probability exactly 1/k)."""
    result = np.empty(n, dtype=bool)
    idx = np.arange(n)
    k = 2  # Bernoulli(1/1) always succeeds
    while idx.size:
        a = gen.integers(0, k, size=idx.size) == 0
        result[idx[~a]] = (k % 2) == 1
        idx = idx[a]
        k += 1
    return result


def _bern_exp_neg(num: np.ndarray, den: int, gen: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) for integers num >= 0, den > 0 (CKS20 Alg. 1)."""
    n = num.shape[0]
    whole = num // den
    frac = num - whole * den
    if whole.dtype == object:
        whole = np.array([min(int(w), _SAFE) for w in whole], dtype=np.int64)  # capped, see below
    result = np.ones(n, dtype=bool)
    # integer part: floor(gamma) independent Bernoulli(e^-1) trials; an element stays
    # alive only while all succeed. (The cap at 2^62 trials is never reached: surviving
    # 64 trials already has probability e^-64, and the loop runs until every element stops.)
    remaining = whole.astype(np.int64)
    active = np.flatnonzero(remaining > 0)
    while active.size:
        ok = _bern_exp_minus_one(active.size, gen)
        result[active[~ok]] = False
        remaining[active[ok]] -= 1
        active = active[ok]
        active = active[remaining[active] > 0]
    alive = np.flatnonzero(result)
    if alive.size:
        result[alive] = _bern_exp_neg_frac(frac[alive], den, gen)
    return result


# ---------------------------------------------------------------- samplers


def _discrete_laplace(n: int, t: int, gen: np.random.Generator) -> np.ndarray:
    """n samples of the discrete Laplace with P[Y=y] ∝ exp(-|y|/t), integer t >= 1 (CKS20 Alg. 2)."""
    out = np.empty(n, dtype=np.int64)
    filled = 0
    tt = np.int64(t)
    while filled < n:
        m = max(64, int(1.7 * (n - filled)) + 16)
        U = gen.integers(0, tt, size=m, dtype=np.int64)
        D = _bern_exp_neg_frac(U, t, gen)
        U = U[D]
        # V ~ Geometric: number of Bernoulli(e^-1) successes before the first failure
        V = np.zeros(U.size, dtype=np.int64)
        active = np.arange(U.size)
        while active.size:
            ok = _bern_exp_minus_one(active.size, gen)
            V[active[ok]] += 1
            active = active[ok]
        X = U + tt * V
        B = gen.integers(0, 2, size=X.size, dtype=np.int64)
        keep = ~((B == 1) & (X == 0))
        Y = ((1 - 2 * B) * X)[keep]
        take = min(Y.size, n - filled)
        out[filled:filled + take] = Y[:take]
        filled += take
    return out


def _discrete_gaussian_flat(n: int, s2: Fraction, gen: np.random.Generator) -> np.ndarray:
    p, q = s2.numerator, s2.denominator
    t = math.isqrt(p // q) + 1  # floor(sigma) + 1
    den_scalar = 2 * p * q * t * t
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        need = n - filled
        Y = _discrete_laplace(max(64, int(1.3 * need) + 16), t, gen)
        absY = np.abs(Y)
        # int64 where the exponent's numerator (|Y| t q - p)^2 fits, exact Python ints elsewhere
        if den_scalar < _SAFE:
            small = absY.astype(float) * float(t * q) + float(p) < 2.0 ** 31
        else:
            small = np.zeros(Y.size, dtype=bool)
        C = np.empty(Y.size, dtype=bool)
        idx = np.flatnonzero(small)
        if idx.size:
            a = absY[idx] * np.int64(t * q) - np.int64(p)
            C[idx] = _bern_exp_neg(a * a, den_scalar, gen)
        idx = np.flatnonzero(~small)
        if idx.size:
            a = absY[idx].astype(object) * (t * q) - p
            C[idx] = _bern_exp_neg(a * a, den_scalar, gen)
        Y = Y[C]
        take = min(Y.size, need)
        out[filled:filled + take] = Y[:take]
        filled += take
    return out


def sample_discrete_gaussian(shape: Any, sigma2: Any, rng: RngLike = None) -> np.ndarray:
    r"""I.i.d. samples of the discrete Gaussian :math:`\mathcal N_{\mathbb Z}(0, \sigma^2)` (CKS20, Alg. 3).

    Parameters
    ----------
    shape : output shape (int or tuple of ints).
    sigma2 : the variance parameter :math:`\sigma^2 > 0` (int, float or ``Fraction``;
        a float is rounded up to a multiple of :math:`2^{-20}`, see :func:`rational_sigma2`).
    rng : SPEC 7 generator spec; ``None`` = fresh OS entropy.

    Returns
    -------
    ``int64`` array. Inside :func:`sosproj.testing.noise_disabled` (tests only) it is all zeros.

    >>> s = sample_discrete_gaussian(100_000, 9.0, rng=1)
    >>> abs(float(s.mean())) < 0.05, 8.8 < float(s.var()) < 9.1
    (True, True)
    """
    shape = _shape_tuple(shape)
    s2 = rational_sigma2(sigma2)
    gen = as_generator(rng)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if noise_is_disabled():
        return np.zeros(shape, dtype=np.int64)
    if n == 0:
        return np.zeros(shape, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    batch = 1 << 18
    for start in range(0, n, batch):  # bounded memory for millions of samples
        stop = min(n, start + batch)
        out[start:stop] = _discrete_gaussian_flat(stop - start, s2, gen)
    return out.reshape(shape)


# ----------------------------------------------------------------- the pmf


def discrete_gaussian_logpmf(x: Any, sigma2: float) -> np.ndarray:
    r"""Log-pmf of :math:`\mathcal N_{\mathbb Z}(0, \sigma^2)`: :math:`-x^2/(2\sigma^2) - \log Z`.

    The normalizer :math:`Z = \sum_{y\in\mathbb Z} e^{-y^2/(2\sigma^2)}` is summed
    over :math:`|y| \le 40\sigma + 40` (the remainder is below :math:`e^{-800}`).

    >>> round(float(np.exp(discrete_gaussian_logpmf(0, 1.0))), 6)
    0.398942
    """
    s2 = float(rational_sigma2(sigma2))
    xs = check_array(x, "x", allow_empty=True)
    if np.any(xs != np.rint(xs)):
        raise InvalidInputError("x must hold integers (the discrete Gaussian lives on the integers)")
    return -xs ** 2 / (2 * s2) - _log_normalizer(s2)


def _log_normalizer(s2: float) -> float:
    r = int(40 * math.sqrt(s2) + 40)
    y = np.arange(-r, r + 1, dtype=float)
    return float(logsumexp(-y * y / (2 * s2)))


# ------------------------------------------------------------- calibration


def discrete_gaussian_delta(sigma2: Any, epsilon: float, sensitivity: int = 1) -> float:
    r"""Exact :math:`\delta(\varepsilon)` of adding :math:`\mathcal N_{\mathbb Z}(0,\sigma^2)` to one integer query.

    CKS20, Theorem 7 (sensitivity :math:`\Delta` an integer):
    :math:`\delta = \sum_{y > c} P(y)\,(1 - \exp(\varepsilon - (2y\Delta + \Delta^2)/(2\sigma^2)))`,
    :math:`c = \varepsilon\sigma^2/\Delta - \Delta/2`, which equals
    :math:`P[X > c] - e^{\varepsilon}P[X > c + \Delta]` and is summed term by term
    (all terms positive) in log space.

    >>> d = discrete_gaussian_delta(16.0, 1.0)
    >>> 0 < d < 1e-3
    True
    """
    s2 = float(rational_sigma2(sigma2))
    eps = check_nonnegative(epsilon, "epsilon")
    D = check_int(sensitivity, "sensitivity", minimum=1)
    c = eps * s2 / D - D / 2.0
    lo = math.floor(c) + 1
    hi = lo + int(40 * math.sqrt(s2) + 40) + 2 * D
    y = np.arange(lo, hi + 1, dtype=float)
    log_p = -y * y / (2 * s2) - _log_normalizer(s2)
    expo = eps - (2 * y * D + D * D) / (2 * s2)
    mask = expo < 0
    if not np.any(mask):
        return 0.0
    terms = log_p[mask] + np.log(-np.expm1(expo[mask]))
    return float(min(1.0, math.exp(logsumexp(terms))))


def discrete_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0, *,
                            method: str = "zcdp") -> float:
    r"""Smallest :math:`\sigma` of discrete Gaussian noise giving :math:`(\varepsilon,\delta)`-DP.

    Parameters
    ----------
    epsilon, delta : the privacy guarantee.
    sensitivity : :math:`\ell_2`-sensitivity of the integer-valued query under the
        mechanism's adjacency (``method="exact"``: a positive integer, one count).
    method : ``"zcdp"`` (default, any dimension: CKS20 Thm. 14 + Cor. 13) or
        ``"exact"`` (one count: CKS20 Thm. 7, tight).

    Returns the standard-deviation parameter :math:`\sigma`; pass ``sigma**2`` to
    :func:`sample_discrete_gaussian`.

    >>> s_exact = discrete_gaussian_sigma(1.0, 1e-6, 1, method="exact")
    >>> s_zcdp = discrete_gaussian_sigma(1.0, 1e-6, 1)
    >>> s_exact < s_zcdp
    True
    >>> discrete_gaussian_delta(s_exact ** 2, 1.0) <= 1e-6
    True
    """
    epsilon, delta, sensitivity = check_privacy_params(epsilon, delta, sensitivity)
    check_choice(method, "method", ("zcdp", "exact"))
    if method == "exact" and sensitivity != int(sensitivity):
        raise InvalidParameterError(
            "method='exact' needs an integer sensitivity (one integer count); use method='zcdp' "
            "for real or vector (l2) sensitivities")
    return _calibrate(epsilon, delta, sensitivity, method)


@functools.lru_cache(maxsize=512)
def _calibrate(epsilon: float, delta: float, sensitivity: float, method: str) -> float:
    """Validated, cached core of :func:`discrete_gaussian_sigma` (a pure function of public parameters)."""
    from sosproj.privacy.accountant import zcdp_epsilon_cks20

    if method == "zcdp":
        # largest rho with eps_CKS(rho, delta) <= epsilon; eps is increasing in rho.
        lo, hi = 0.0, max(1.0, epsilon)
        while zcdp_epsilon_cks20(hi, delta) <= epsilon:
            hi *= 2.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if zcdp_epsilon_cks20(mid, delta) <= epsilon:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-15 * hi:
                break
        return sensitivity / math.sqrt(2.0 * lo)
    D = int(sensitivity)

    def ok(sigma: float) -> bool:
        return discrete_gaussian_delta(sigma * sigma, epsilon, D) <= delta

    lo, hi = 1e-3, D * math.sqrt(2.0 * math.log(2.0 / delta)) / epsilon + 2.0
    while not ok(hi):
        hi *= 2.0
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
        if hi / lo - 1.0 <= 1e-12:
            break
    # the sampler rounds sigma^2 up to the 2^-20 grid, which only lowers delta
    return hi


__all__ = [
    "sample_discrete_gaussian", "discrete_gaussian_sigma", "discrete_gaussian_delta",
    "discrete_gaussian_logpmf", "rational_sigma2",
]

r"""Privacy-budget accounting: zero-concentrated DP and :math:`(\varepsilon, \delta)` composition.

A :class:`PrivacyAccountant` holds a total budget :math:`(\varepsilon, \delta)` and a
ledger of charges. Every charge is checked *before* it is recorded: a release that
would push the composed guarantee over the budget raises
:class:`~sosproj.errors.PrivacyBudgetError` and changes nothing, so a mechanism
that charges before it draws noise releases nothing over budget.

Two ledgers are kept and composed with each other by basic composition:

* **zCDP ledger** (Bun and Steinke, TCC 2016). A Gaussian mechanism with
  :math:`\ell_2`-sensitivity :math:`\Delta` and noise :math:`\sigma` is
  :math:`\rho`-zCDP with :math:`\rho = \Delta^2 / (2\sigma^2)` (BS16, Prop. 1.6);
  so is the discrete Gaussian with integer-valued queries (Canonne, Kamath and
  Steinke 2020, Thm. 14). zCDP composes additively (BS16, Lemma 2.3). The sum is
  converted to :math:`(\varepsilon, \delta)` with

  - ``"bs16"``: :math:`\varepsilon = \rho + 2\sqrt{\rho\ln(1/\delta)}` (BS16, Prop. 1.3);
  - ``"cks20"`` (default): :math:`\varepsilon = \inf_{\alpha > 1} \alpha\rho +
    \frac{\ln(1/\delta) + (\alpha-1)\ln(1-1/\alpha) - \ln\alpha}{\alpha - 1}`
    (Canonne, Kamath and Steinke 2020, Cor. 13), never larger than ``"bs16"``;
  - ``"gaussian"``: exact, valid only while every zCDP charge is a continuous
    Gaussian mechanism: a composition of Gaussian mechanisms is one Gaussian
    mechanism with :math:`\mu = \sqrt{\sum_i \Delta_i^2/\sigma_i^2} = \sqrt{2\rho}`
    (Dong, Roth and Su 2022, Cor. 3.3), whose exact profile is Balle and Wang's
    (:func:`~sosproj.privacy.calibration.gaussian_delta`).
  ``"best"`` takes the smallest valid one.

* **Approximate-DP ledger** for mechanisms that only state :math:`(\varepsilon_i,\delta_i)`:

  - ``"basic"``: :math:`(\sum\varepsilon_i, \sum\delta_i)` (Dwork et al. 2006);
  - ``"advanced"``: :math:`\varepsilon = \sqrt{2\ln(1/\delta')\sum\varepsilon_i^2}
    + \sum\varepsilon_i(e^{\varepsilon_i}-1)`, :math:`\delta = \sum\delta_i + \delta'`
    (Dwork, Rothblum and Vadhan, FOCS 2010, Thm. III.3; Dwork and Roth 2014, Thm. 3.20);
  - ``"optimal"``: the optimal composition of :math:`k` identical
    :math:`(\varepsilon_0, \delta_0)` mechanisms (Kairouz, Oh and Viswanath, ICML 2015,
    Thm. 3.3): the :math:`k`-fold composition is :math:`(\varepsilon, \delta)`-DP iff
    :math:`\delta \ge 1 - (1-\delta_0)^k\,(1 - \delta_{\mathrm{RR}}(\varepsilon))` with
    :math:`\delta_{\mathrm{RR}}(\varepsilon) = (1+e^{\varepsilon_0})^{-k}\sum_{l}\binom{k}{l}
    \max(0, e^{(k-l)\varepsilon_0} - e^{\varepsilon + l\varepsilon_0})`
    (used only when all approximate-DP charges are identical);
  - ``"best"`` (default): the smallest valid one.

The remaining :math:`\delta` (budget minus the :math:`\delta_i` already charged) is
split between the zCDP conversion and the advanced-composition slack
:math:`\delta'` so as to minimize the total :math:`\varepsilon`.

Adjacency
---------
A guarantee holds for one neighbouring relation (:class:`~sosproj.privacy.spec.Adjacency`),
and guarantees compose only under the same one. The accountant fixes its adjacency at
creation (default replace-one); every charge carries an adjacency (from its
:class:`~sosproj.privacy.spec.PrivacySpec`, or stated; replace-one, sosproj's default,
when unstated), and a charge under another adjacency is refused with
:class:`~sosproj.errors.PrivacyBudgetError` before anything is recorded.

The budget and the ledger cannot be changed from outside: the attributes are
read-only, the ledger is a tuple of frozen :class:`Charge` entries, and only the
``charge*`` methods append to it (after the checks).

How mechanisms use it
---------------------
Every sosproj mechanism takes ``accountant: PrivacyAccountant | None``; when given,
the mechanism validates its parameters into a ``PrivacySpec``, calibrates
:math:`\sigma` (public information only), then calls
:meth:`PrivacyAccountant.charge_gaussian` with that spec *before* any noise is drawn
or any data-dependent output is computed. A refused charge raises and nothing is released.

Examples
--------
>>> acc = PrivacyAccountant(epsilon=1.0, delta=1e-6)
>>> from sosproj.privacy.calibration import gaussian_sigma
>>> s = gaussian_sigma(0.5, 1e-6)
>>> _ = acc.charge_gaussian(sigma=s, sensitivity=1.0, label="first")
>>> eps, delta = acc.spent()
>>> eps < 1.0, delta <= 1e-6
(True, True)
>>> acc.charge_gaussian(sigma=s / 3, sensitivity=1.0)  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
PrivacyBudgetError: ...
>>> acc.ledger.clear()  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
AttributeError: 'tuple' object has no attribute 'clear'
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import gammaln, log_ndtr

from sosproj.errors import InvalidParameterError, PrivacyBudgetError
from sosproj.privacy.spec import Adjacency, PrivacySpec
from sosproj.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
    check_same_shape,
)

CONVERSIONS = ("best", "cks20", "bs16", "gaussian")
COMPOSITIONS = ("best", "basic", "advanced", "optimal")

# ----------------------------------------------------------------- conversions


def zcdp_epsilon_bs16(rho: float, delta: float) -> float:
    r"""Bun-Steinke conversion: :math:`\rho`-zCDP implies :math:`(\rho + 2\sqrt{\rho\ln(1/\delta)}, \delta)`-DP.

    BS16, Proposition 1.3.

    >>> round(zcdp_epsilon_bs16(0.5, 1e-6), 6)
    5.756522
    """
    rho = check_nonnegative(rho, "rho")
    delta = check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_epsilon_cks20(rho: float, delta: float) -> float:
    r"""Canonne-Kamath-Steinke conversion of :math:`\rho`-zCDP to :math:`(\varepsilon, \delta)`-DP.

    :math:`\varepsilon = \inf_{\alpha>1} \alpha\rho + [\ln(1/\delta) + (\alpha-1)\ln(1-1/\alpha)
    - \ln\alpha]/(\alpha-1)` (CKS20, Corollary 13), minimized over :math:`\ln(\alpha - 1)`
    and never reported above the Bun-Steinke value; clipped at 0.

    >>> round(zcdp_epsilon_cks20(0.5, 1e-6), 4)
    5.2215
    >>> zcdp_epsilon_cks20(0.5, 1e-6) < zcdp_epsilon_bs16(0.5, 1e-6)
    True
    """
    rho = check_nonnegative(rho, "rho")
    delta = check_delta(delta)
    if rho == 0.0:
        return 0.0
    log_inv_delta = -math.log(delta)

    def f(t: float) -> float:
        a = 1.0 + math.exp(t)  # alpha > 1
        am1 = a - 1.0
        return a * rho + (log_inv_delta + am1 * math.log1p(-1.0 / a) - math.log(a)) / am1

    # The objective is smooth and unimodal in t = log(alpha - 1); the optimum alpha is near
    # 1 + sqrt(log(1/delta) / rho). Bracket generously around it.
    t0 = 0.5 * math.log(max(log_inv_delta, 1e-12) / rho)
    res = minimize_scalar(f, bounds=(t0 - 25.0, t0 + 25.0), method="bounded",
                          options={"xatol": 1e-12, "maxiter": 500})
    best = min(float(res.fun), f(t0))
    return max(0.0, min(best, zcdp_epsilon_bs16(rho, delta)))


def gaussian_epsilon(mu: float, delta: float) -> float:
    r"""Exact :math:`\varepsilon(\delta)` of a Gaussian mechanism with :math:`\mu = \Delta/\sigma`.

    Inverts the Balle-Wang profile :math:`\delta(\varepsilon) = \Phi(\mu/2 - \varepsilon/\mu)
    - e^{\varepsilon}\Phi(-\mu/2 - \varepsilon/\mu)` by root finding; 0 if the profile at
    :math:`\varepsilon = 0` is already :math:`\le \delta`.

    >>> from sosproj.privacy.calibration import gaussian_sigma
    >>> round(gaussian_epsilon(1.0 / gaussian_sigma(1.0, 1e-6), 1e-6), 9)
    1.0
    """
    mu = check_nonnegative(mu, "mu")
    delta = check_delta(delta)
    if mu == 0.0:
        return 0.0
    log_delta = math.log(delta)

    def g(eps: float) -> float:
        return _gaussian_log_profile(mu, eps) - log_delta

    if g(0.0) <= 0.0:
        return 0.0
    hi = max(1.0, mu * mu / 2.0 + mu * math.sqrt(2.0 * math.log(1.0 / delta)) + 1.0)
    while g(hi) > 0.0:
        hi *= 2.0
    eps = brentq(g, 0.0, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
    while g(eps) > 0.0:  # never report below the exact value
        eps = math.nextafter(eps, math.inf) * (1.0 + 1e-15)
    return float(eps)


def _gaussian_log_profile(mu: float, eps: float) -> float:
    """log delta(eps) of the Gaussian mechanism with mu = Delta/sigma, for every eps >= 0 (Balle-Wang)."""
    la = float(log_ndtr(0.5 * mu - eps / mu))
    d = eps + float(log_ndtr(-0.5 * mu - eps / mu)) - la
    if d >= 0.0:  # round-off only
        return -math.inf
    return la + math.log(-math.expm1(d))


# ----------------------------------------------------------------- composition


def basic_composition(epsilons: Any, deltas: Any) -> tuple[float, float]:
    r"""Basic composition: :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)` (Dwork et al. 2006).

    >>> basic_composition([0.5, 0.25], [1e-6, 0.0])
    (0.75, 1e-06)
    """
    e, d = _check_lists(epsilons, deltas)
    return float(e.sum()), float(d.sum())


def _check_lists(epsilons: Any, deltas: Any) -> tuple[np.ndarray, np.ndarray]:
    e = check_array(epsilons, "epsilons", ndim=1)
    d = check_array(deltas, "deltas", ndim=1)
    check_same_shape(e, d, "epsilons", "deltas")
    if np.any(e < 0):
        raise InvalidParameterError("epsilons must be >= 0; pass the epsilon of each composed mechanism")
    if np.any((d < 0) | (d >= 1)):
        raise InvalidParameterError("deltas must lie in [0, 1); pass the delta of each composed mechanism")
    return e, d


def advanced_composition(epsilons: Any, deltas: Any, delta_slack: float) -> tuple[float, float]:
    r"""Advanced composition (Dwork, Rothblum and Vadhan 2010, Thm. III.3).

    The adaptive composition of :math:`(\varepsilon_i, \delta_i)`-DP mechanisms is
    :math:`(\sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2} + \sum_i \varepsilon_i(e^{\varepsilon_i}-1),
    \; \delta' + \sum_i\delta_i)`-DP for every :math:`\delta' > 0` (for equal
    :math:`\varepsilon_i = \varepsilon_0` this is Dwork and Roth 2014, Thm. 3.20).

    >>> e, d = advanced_composition([0.1] * 100, [0.0] * 100, 1e-6)
    >>> round(e, 4), d
    (6.3082, 1e-06)
    """
    e, d = _check_lists(epsilons, deltas)
    delta_slack = check_delta(delta_slack, "delta_slack")
    eps = math.sqrt(2.0 * math.log(1.0 / delta_slack) * float(np.sum(e * e))) + float(np.sum(e * np.expm1(e)))
    return eps, float(d.sum()) + delta_slack


def _log_delta_rr(eps0: float, k: int, eps: float) -> float:
    """log of the KOV delta_RR(eps) for the k-fold composition of eps0-randomized response."""
    # terms l with (k - l) eps0 > eps + l eps0  <=>  l < (k eps0 - eps) / (2 eps0)
    lmax = math.ceil((k * eps0 - eps) / (2.0 * eps0)) - 1
    if lmax < 0:
        return -math.inf
    lmax = min(lmax, k)
    l_idx = np.arange(lmax + 1, dtype=float)
    log_binom = gammaln(k + 1.0) - gammaln(l_idx + 1.0) - gammaln(k - l_idx + 1.0)
    expo = eps - (k - 2.0 * l_idx) * eps0  # < 0 on these terms
    expo = np.minimum(expo, -1e-300)
    terms = log_binom + (k - l_idx) * eps0 + np.log(-np.expm1(expo))
    log_norm = k * np.logaddexp(0.0, eps0)
    top = float(terms.max())
    return top + math.log(float(np.exp(terms - top).sum())) - float(log_norm)


def optimal_composition_delta(eps0: float, delta0: float, k: int, epsilon: float) -> float:
    r"""Smallest :math:`\delta` for which :math:`k` identical :math:`(\varepsilon_0,\delta_0)`-DP
    mechanisms compose to :math:`(\varepsilon, \delta)`-DP (Kairouz, Oh and Viswanath 2015, Thm. 3.3).

    :math:`\delta = 1 - (1-\delta_0)^k (1 - \delta_{\mathrm{RR}})`, with :math:`\delta_{\mathrm{RR}}`
    the exact hockey-stick divergence of :math:`k`-fold randomized response
    (Murtagh and Vadhan 2016, Thm. 1.5 for the formula at every :math:`\varepsilon`).

    >>> optimal_composition_delta(1.0, 0.0, 1, 1.0)
    0.0
    >>> round(optimal_composition_delta(1.0, 0.0, 2, 0.0), 6)  # (e^2 - 1) / (1 + e)^2: total variation
    0.462117
    """
    eps0 = check_positive(eps0, "eps0")
    delta0 = check_nonnegative(delta0, "delta0")
    k = check_int(k, "k", minimum=1)
    epsilon = check_nonnegative(epsilon, "epsilon")
    log_rr = _log_delta_rr(eps0, k, epsilon)
    one_minus_rr = -math.expm1(log_rr) if log_rr > -math.inf else 1.0
    return float(-math.expm1(k * math.log1p(-delta0) + math.log(one_minus_rr))) if one_minus_rr > 0 else 1.0


def optimal_composition_epsilon(eps0: float, delta0: float, k: int, delta: float) -> float:
    r"""Smallest :math:`\varepsilon` with :func:`optimal_composition_delta` :math:`\le \delta` (KOV 2015).

    Bisection on the monotone profile; returns ``inf`` when :math:`\delta < 1-(1-\delta_0)^k`.

    >>> round(optimal_composition_epsilon(0.1, 0.0, 100, 1e-6), 4) < 6.3082  # beats DRV10
    True
    """
    eps0 = check_positive(eps0, "eps0")
    delta0 = check_nonnegative(delta0, "delta0")
    k = check_int(k, "k", minimum=1)
    delta = check_delta(delta)
    if optimal_composition_delta(eps0, delta0, k, k * eps0) > delta:
        return math.inf
    if optimal_composition_delta(eps0, delta0, k, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, k * eps0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if optimal_composition_delta(eps0, delta0, k, mid) <= delta:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return hi


# -------------------------------------------------------------------- ledger


@dataclass(frozen=True)
class Charge:
    """One entry of the ledger (public parameters only, never data).

    ``kind`` is ``"gaussian"`` (continuous Gaussian, exact GDP composition applies),
    ``"zcdp"`` (any :math:`\\rho`-zCDP mechanism, e.g. the discrete Gaussian) or
    ``"approx"`` (an :math:`(\\varepsilon, \\delta)`-DP mechanism). ``count``
    identical repetitions are recorded as one entry. ``adjacency`` is the
    neighbouring relation the charged guarantee holds under.
    """

    kind: str
    label: str
    count: int = 1
    rho: float | None = None
    epsilon: float | None = None
    delta: float | None = None
    sigma: float | None = None
    sensitivity: float | None = None
    adjacency: Adjacency = Adjacency.REPLACE_ONE


class PrivacyAccountant:
    r"""A privacy budget :math:`(\varepsilon, \delta)` under one adjacency, with a read-only ledger.

    Parameters
    ----------
    epsilon, delta : the total budget.
    conversion : zCDP-to-DP conversion, one of ``"best"`` (default), ``"cks20"``,
        ``"bs16"``, ``"gaussian"`` (see module docstring).
    composition : approximate-DP composition, ``"best"`` (default), ``"basic"``,
        ``"advanced"``, ``"optimal"``.
    accounting : ``"zcdp"`` (default) charges Gaussian mechanisms by their
        :math:`\rho`; ``"approx"`` charges them by their stated
        :math:`(\varepsilon, \delta)` (the classical way, looser under composition).
    adjacency : the neighbouring relation of the budget (an
        :class:`~sosproj.privacy.spec.Adjacency` or its value, default replace-one);
        charges under another relation are refused.

    Every attribute is read-only; ``ledger`` is a tuple. Charges are serialized by a
    lock (one accountant may be shared between threads).

    >>> acc = PrivacyAccountant(2.0, 1e-6)
    >>> for _ in range(4):
    ...     _ = acc.charge(epsilon=0.25, delta=1e-8)
    >>> round(acc.spent()[0], 4), acc.remaining_epsilon() > 0
    (1.0, True)
    >>> acc.epsilon = 10.0  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    AttributeError: ...
    """

    __slots__ = ("_epsilon", "_delta", "_conversion", "_composition", "_accounting", "_adjacency",
                 "_ledger", "_lock", "_frozen")

    def __init__(self, epsilon: float, delta: float, conversion: str = "best", composition: str = "best",
                 accounting: str = "zcdp", *, adjacency: Adjacency | str = Adjacency.REPLACE_ONE) -> None:
        self._set("_epsilon", check_epsilon(epsilon))
        self._set("_delta", check_delta(delta))
        self._set("_conversion", check_choice(conversion, "conversion", CONVERSIONS))
        self._set("_composition", check_choice(composition, "composition", COMPOSITIONS))
        self._set("_accounting", check_choice(accounting, "accounting", ("zcdp", "approx")))
        self._set("_adjacency", Adjacency.parse(adjacency))
        self._set("_ledger", ())
        self._set("_lock", threading.Lock())
        self._set("_frozen", True)

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"PrivacyAccountant is read-only ({name!r} cannot be set); the budget is fixed "
                             "at creation and the ledger grows only through charge*(); create a new "
                             "accountant for a new budget")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"PrivacyAccountant is read-only ({name!r} cannot be deleted)")

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__ if name != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            self._set(name, value)
        self._set("_lock", threading.Lock())

    def __repr__(self) -> str:
        return (f"PrivacyAccountant(epsilon={self._epsilon!r}, delta={self._delta!r}, "
                f"adjacency={self._adjacency.value!r}, charges={len(self._ledger)})")

    # ------------------------------------------------------------- read-only state
    @property
    def epsilon(self) -> float:
        """The budget's epsilon."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """The budget's delta."""
        return self._delta

    @property
    def adjacency(self) -> Adjacency:
        """The neighbouring relation every charge must share."""
        return self._adjacency

    @property
    def conversion(self) -> str:
        """The zCDP-to-DP conversion."""
        return self._conversion

    @property
    def composition(self) -> str:
        """The approximate-DP composition rule."""
        return self._composition

    @property
    def accounting(self) -> str:
        """``"zcdp"`` or ``"approx"``."""
        return self._accounting

    @property
    def ledger(self) -> tuple[Charge, ...]:
        """The charges so far, oldest first (a tuple of frozen entries: read-only)."""
        return self._ledger

    # ------------------------------------------------------------- queries
    @property
    def rho(self) -> float:
        """Total zCDP parameter of the zCDP ledger (sum of the charged rho's)."""
        return _rho_of(self._ledger)

    def spent(self, delta: float | None = None) -> tuple[float, float]:
        r"""The composed guarantee :math:`(\varepsilon, \delta)` of everything charged so far.

        :math:`\varepsilon` is minimized subject to the total :math:`\delta` being at most
        ``delta`` (default: the budget's :math:`\delta`). Returns ``(inf, delta)`` when the
        charged :math:`\delta_i` alone exceed it.

        >>> PrivacyAccountant(1.0, 1e-6).spent()
        (0.0, 0.0)
        """
        target = self._delta if delta is None else check_delta(delta)
        return _compose(list(self._ledger), target, self._conversion, self._composition)

    def remaining_epsilon(self) -> float:
        r"""Budget :math:`\varepsilon` minus :func:`spent` :math:`\varepsilon` (may be 0).

        >>> PrivacyAccountant(1.0, 1e-6).remaining_epsilon()
        1.0
        """
        return max(0.0, self._epsilon - self.spent()[0])

    def can_afford(self, charge: Charge) -> bool:
        """Whether adding ``charge`` keeps the composed guarantee within the budget.

        >>> acc = PrivacyAccountant(1.0, 1e-6)
        >>> acc.can_afford(Charge(kind="approx", label="x", epsilon=2.0, delta=0.0))
        False
        """
        eps, dlt = _compose([*self._ledger, charge], self._delta, self._conversion, self._composition)
        return eps <= self._epsilon * (1.0 + 1e-12) and dlt <= self._delta * (1.0 + 1e-12)

    def check_adjacency(self, adjacency: Adjacency | str | None, label: str = "charge") -> Adjacency:
        """The adjacency of a charge (replace-one when ``None``), refused if it is not the accountant's.

        Mechanisms may call it at their door, before any work; every ``charge*`` calls it.

        >>> PrivacyAccountant(1.0, 1e-6).check_adjacency("replace-one")
        <Adjacency.REPLACE_ONE: 'replace-one'>
        """
        adj = Adjacency.REPLACE_ONE if adjacency is None else Adjacency.parse(adjacency)
        if adj is not self._adjacency:
            raise PrivacyBudgetError(
                f"charge {label!r} refused: its guarantee holds under {adj.value!r} adjacency but this "
                f"accountant composes {self._adjacency.value!r} guarantees; nothing was released. Compute "
                f"the sensitivity under {self._adjacency.value!r} adjacency, or use an accountant created "
                f"with adjacency={adj.value!r}")
        return adj

    # ------------------------------------------------------------- charges
    def _commit(self, charge: Charge) -> Charge:
        self.check_adjacency(charge.adjacency, charge.label)
        with self._lock:
            if not self.can_afford(charge):
                raise PrivacyBudgetError(
                    f"charge {charge.label!r} refused: it would exceed the privacy budget "
                    f"(epsilon={self._epsilon:g}, delta={self._delta:g}); nothing was released. "
                    "Use a smaller epsilon for this release, or a new accountant for a new budget")
            self._set("_ledger", (*self._ledger, charge))
        return charge

    def charge_gaussian(self, *, sigma: float, sensitivity: float | None = None, epsilon: float | None = None,
                        delta: float | None = None, label: str = "gaussian", count: int = 1,
                        discrete: bool = False, spec: PrivacySpec | None = None,
                        adjacency: Adjacency | str | None = None) -> Charge:
        r"""Charge ``count`` Gaussian mechanisms (noise ``sigma``, :math:`\ell_2`-sensitivity ``sensitivity``).

        ``spec`` (a :class:`~sosproj.privacy.spec.PrivacySpec`, the mechanisms' way) supplies
        the sensitivity, the stated ``(epsilon, delta)`` and the adjacency; without it they are
        given one by one (adjacency replace-one when not stated). In ``accounting="zcdp"``
        mode the charge is :math:`\rho = \Delta^2/(2\sigma^2)` per repetition (BS16 Prop. 1.6;
        for ``discrete=True``, the discrete Gaussian on an integer-valued query, CKS20
        Thm. 14). In ``"approx"`` mode it is the stated ``(epsilon, delta)``, which must
        then be given. Raises :class:`~sosproj.errors.PrivacyBudgetError` (and records
        nothing) if over budget or under another adjacency.

        >>> acc = PrivacyAccountant(1.0, 1e-6)
        >>> acc.charge_gaussian(sigma=10.0, sensitivity=1.0).rho
        0.005
        """
        if spec is not None:
            if not isinstance(spec, PrivacySpec):
                raise InvalidParameterError("spec must be a PrivacySpec; build it with PrivacySpec.create(...)")
            if sensitivity is not None or epsilon is not None or delta is not None or adjacency is not None:
                raise InvalidParameterError("pass either spec= or sensitivity/epsilon/delta/adjacency, not both")
            sensitivity, epsilon, delta, adjacency = spec.sensitivity, spec.epsilon, spec.delta, spec.adjacency
        if sensitivity is None:
            raise InvalidParameterError("charge_gaussian needs sensitivity= (or spec=)")
        label = str(label)
        adj = self.check_adjacency(adjacency, label)
        sigma = check_positive(sigma, "sigma")
        sensitivity = check_positive(sensitivity, "sensitivity")
        count = check_int(count, "count", minimum=1)
        if epsilon is not None:
            epsilon = check_epsilon(epsilon)
        if delta is not None:
            delta = check_delta(delta)
        if self._accounting == "approx":
            if epsilon is None or delta is None:
                raise InvalidParameterError(
                    "accounting='approx' needs the stated epsilon and delta of the Gaussian "
                    "mechanism; pass epsilon= and delta= to charge_gaussian")
            return self._commit(Charge(kind="approx", label=label, count=count, epsilon=epsilon,
                                       delta=delta, sigma=sigma, sensitivity=sensitivity, adjacency=adj))
        rho = sensitivity ** 2 / (2.0 * sigma ** 2)
        return self._commit(Charge(kind="zcdp" if discrete else "gaussian", label=label, count=count,
                                   rho=rho, epsilon=epsilon, delta=delta, sigma=sigma,
                                   sensitivity=sensitivity, adjacency=adj))

    def charge_zcdp(self, rho: float, *, label: str = "zcdp", count: int = 1,
                    adjacency: Adjacency | str | None = None) -> Charge:
        r"""Charge ``count`` :math:`\rho`-zCDP mechanisms (under ``adjacency``, replace-one by default).

        >>> PrivacyAccountant(1.0, 1e-6).charge_zcdp(0.01).rho
        0.01
        """
        adj = self.check_adjacency(adjacency, str(label))
        rho = check_positive(rho, "rho")
        count = check_int(count, "count", minimum=1)
        return self._commit(Charge(kind="zcdp", label=str(label), count=count, rho=rho, adjacency=adj))

    def charge(self, *, epsilon: float | None = None, delta: float | None = None, label: str = "approx",
               count: int = 1, spec: PrivacySpec | None = None,
               adjacency: Adjacency | str | None = None) -> Charge:
        r"""Charge ``count`` :math:`(\varepsilon, \delta)`-DP mechanisms (``delta=0``: pure DP).

        ``spec`` supplies epsilon, delta and the adjacency instead.

        >>> PrivacyAccountant(1.0, 1e-6).charge(epsilon=0.1).epsilon
        0.1
        """
        if spec is not None:
            if not isinstance(spec, PrivacySpec):
                raise InvalidParameterError("spec must be a PrivacySpec; build it with PrivacySpec.create(...)")
            if epsilon is not None or delta is not None or adjacency is not None:
                raise InvalidParameterError("pass either spec= or epsilon/delta/adjacency, not both")
            epsilon, delta, adjacency = spec.epsilon, spec.delta, spec.adjacency
        if epsilon is None:
            raise InvalidParameterError("charge needs epsilon= (or spec=)")
        adj = self.check_adjacency(adjacency, str(label))
        epsilon = check_epsilon(epsilon)
        delta = check_nonnegative(0.0 if delta is None else delta, "delta")
        if delta >= 1.0:
            raise InvalidParameterError("delta must lie in [0, 1); pass e.g. delta=1e-8")
        count = check_int(count, "count", minimum=1)
        return self._commit(Charge(kind="approx", label=str(label), count=count, epsilon=epsilon,
                                   delta=delta, adjacency=adj))

    def summary(self) -> dict[str, Any]:
        """Public summary of the budget and ledger (safe to log: parameters only).

        >>> PrivacyAccountant(1.0, 1e-6).summary()["charges"]
        0
        """
        eps, dlt = self.spent()
        return {"budget_epsilon": self._epsilon, "budget_delta": self._delta, "spent_epsilon": eps,
                "spent_delta": dlt, "rho": self.rho, "charges": len(self._ledger),
                "conversion": self._conversion, "composition": self._composition,
                "accounting": self._accounting, "adjacency": self._adjacency.value}


# ------------------------------------------------------------------ internals


def _rho_of(ledger: list[Charge]) -> float:
    return float(sum(c.rho * c.count for c in ledger if c.kind in ("gaussian", "zcdp")))


def _zcdp_epsilon(ledger: list[Charge], delta: float, conversion: str) -> float:
    rho = _rho_of(ledger)
    if rho == 0.0:
        return 0.0
    all_gaussian = all(c.kind == "gaussian" for c in ledger if c.kind in ("gaussian", "zcdp"))
    if conversion == "gaussian" and not all_gaussian:
        raise InvalidParameterError(
            "conversion='gaussian' is exact only for continuous Gaussian mechanisms; this ledger "
            "holds other zCDP charges (e.g. discrete Gaussian); use conversion='cks20'")
    candidates = []
    if conversion in ("best", "cks20"):
        candidates.append(zcdp_epsilon_cks20(rho, delta))
    if conversion == "bs16":
        candidates.append(zcdp_epsilon_bs16(rho, delta))
    if conversion == "gaussian" or (conversion == "best" and all_gaussian):
        candidates.append(gaussian_epsilon(math.sqrt(2.0 * rho), delta))
    return min(candidates)


def _approx_epsilon(charges: list[Charge], delta_slack: float | None, composition: str) -> float:
    """Epsilon of the approximate-DP block; the block's delta is sum(delta_i) + delta_slack."""
    eps = np.repeat([c.epsilon for c in charges], [c.count for c in charges]).astype(float)
    dls = np.repeat([c.delta for c in charges], [c.count for c in charges]).astype(float)
    candidates = []
    if composition in ("best", "basic"):
        candidates.append(float(eps.sum()))
    if delta_slack is not None and delta_slack > 0:
        if composition in ("best", "advanced"):
            candidates.append(advanced_composition(eps, np.zeros_like(dls), delta_slack)[0])
        if composition in ("best", "optimal"):
            if np.all(eps == eps[0]) and np.all(dls == dls[0]):
                k = int(eps.size)
                # KOV: total delta = 1 - (1 - d0)^k (1 - d_RR) <= sum(d_i) + slack
                target = min(1.0 - 1e-300, float(-math.expm1(k * math.log1p(-dls[0]))) + delta_slack)
                candidates.append(optimal_composition_epsilon(float(eps[0]), float(dls[0]), k, target))
            elif composition == "optimal":
                raise InvalidParameterError(
                    "composition='optimal' (Kairouz-Oh-Viswanath) needs identical (epsilon, delta) "
                    "charges; use composition='best' or 'advanced' for heterogeneous charges")
    if not candidates:  # "advanced"/"optimal" requested but no slack left
        candidates.append(float(eps.sum()) if composition == "basic" else math.inf)
    return min(candidates)


def _compose(ledger: list[Charge], delta: float, conversion: str, composition: str
             ) -> tuple[float, float]:
    approx = [c for c in ledger if c.kind == "approx"]
    zc = [c for c in ledger if c.kind != "approx"]
    if not ledger:
        return 0.0, 0.0
    d_fixed = float(sum(c.delta * c.count for c in approx))
    d_free = delta - d_fixed
    has_z = _rho_of(zc) > 0.0
    if d_free <= 0.0:
        if has_z or not approx or composition in ("advanced", "optimal"):
            return math.inf, delta
        return _approx_epsilon(approx, None, "basic"), d_fixed
    if not approx:
        return _zcdp_epsilon(zc, d_free, conversion), delta
    if not has_z:
        e_basic = _approx_epsilon(approx, None, "basic")
        if composition == "basic":
            return e_basic, d_fixed
        e_adv = _approx_epsilon(approx, d_free, composition)
        if composition == "best" and e_basic <= e_adv:
            return e_basic, d_fixed
        return e_adv, delta

    # both blocks: split the free delta between the zCDP conversion and the slack delta'.
    def total(frac: float) -> float:
        return (_zcdp_epsilon(zc, d_free * (1.0 - frac), conversion)
                + _approx_epsilon(approx, d_free * frac, composition))

    if composition == "basic":
        return _zcdp_epsilon(zc, d_free, conversion) + _approx_epsilon(approx, None, "basic"), delta
    grid = [1e-6, 1e-4, 1e-2, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99]
    values = [total(f) for f in grid]
    best = min(values)
    # the zCDP block may take all the free delta while the approx block uses basic composition
    best = min(best, _zcdp_epsilon(zc, d_free, conversion) + _approx_epsilon(approx, None, "basic"))
    return best, delta


__all__ = [
    "PrivacyAccountant", "Charge", "zcdp_epsilon_bs16", "zcdp_epsilon_cks20", "gaussian_epsilon",
    "basic_composition", "advanced_composition", "optimal_composition_delta",
    "optimal_composition_epsilon", "CONVERSIONS", "COMPOSITIONS",
]

r"""Empirical privacy audit: a high-confidence lower bound on epsilon from a pair of adjacent inputs.

Method (``test="threshold"``)
-----------------------------
Run the mechanism ``trials`` times on each of two adjacent inputs :math:`D, D'`,
project every output onto the difference direction
:math:`u = \mathbb E M(D') - \mathbb E M(D)` (from the noise-free outputs when the
mechanism provides them, otherwise estimated on a calibration split), and use
threshold events :math:`E_\tau = \{\langle M(\cdot), u\rangle > \tau\}` (or ``<``).
If :math:`M` is :math:`(\varepsilon, \delta)`-DP, then for every event
:math:`P[M(D') \in E] \le e^{\varepsilon} P[M(D) \in E] + \delta`, so

.. math:: \varepsilon \ \ge\ \ln\frac{p_1 - \delta}{p_0},
   \qquad p_1 = P[M(D') \in E],\ p_0 = P[M(D) \in E].

The threshold and orientation are chosen on a calibration split (the first
``calibration_fraction`` of the trials); on the remaining (hold-out) trials, a
Clopper-Pearson lower bound for :math:`p_1` and upper bound for :math:`p_0`, each at
level :math:`\alpha/2` with :math:`\alpha = 1 - \text{confidence}` (``scipy.stats.beta``),
give

.. math:: \hat\varepsilon_{\mathrm{lb}} = \max\Bigl(0, \ln\frac{\underline{p_1} - \delta}{\overline{p_0}}\Bigr).

Statistical meaning: if the mechanism satisfies its claim for this pair, then
:math:`P[\hat\varepsilon_{\mathrm{lb}} > \varepsilon] \le \alpha`; the audit *fails*
when :math:`\hat\varepsilon_{\mathrm{lb}} > \varepsilon`, i.e. it refutes the claim with
confidence :math:`1-\alpha`. Passing proves nothing: it only says this test, with
this many trials, found no violation.

Mechanisms
----------
``mechanism`` is either

* a callable ``mechanism(data, rng) -> array`` (or an object with ``.value``),
  called once per trial (a black box; fine for cheap mechanisms), or
* a *batched* object with ``sample(data, rng, size) -> array (size, ...)`` and
  optionally ``exact(data)`` (the noise-free output, gives the direction) and
  ``verify(data, direction, rng) -> dict`` (a consistency check against the real
  mechanism), such as :class:`GaussianMeasurement`.

Perturb-and-project mechanisms are audited on their **noisy measurement**: the
projection is post-processing, so it can only lower the privacy loss, and the
noisy measurement is where a wrong :math:`\sigma` or sensitivity would show.
:class:`GaussianMeasurement` wraps a real sosproj mechanism in its noise-only
configuration: the noise-free measurement comes from the mechanism's own code
(run inside :func:`~sosproj.testing.noise_disabled`), the noise scale from
the :math:`\sigma` the mechanism reports, the noise from :mod:`sosproj.privacy.noise`
(or the discrete Gaussian), and :meth:`GaussianMeasurement.verify` checks on a few
hundred real runs that the mechanism's actual noise along the audit direction has
that mean and variance (so a mechanism that reports one :math:`\sigma` and draws
a smaller one is caught too).

Examples
--------
>>> import numpy as np
>>> from sosproj.privacy.calibration import gaussian_sigma
>>> sigma = gaussian_sigma(1.0, 1e-6)
>>> mech = lambda x, rng: x + sigma * rng.standard_normal()
>>> res = audit_mechanism(mech, 0.0, 1.0, epsilon=1.0, delta=1e-6, trials=2000, rng=0)
>>> res.passed, res.epsilon_lower_bound < 1.0
(True, True)
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.privacy.noise import gaussian_noise
from sosproj.rng import RngLike, as_generator
from sosproj.testing import noise_disabled
from sosproj.validation import (
    check_array,
    check_choice,
    check_delta,
    check_epsilon,
    check_fraction,
    check_int,
    check_positive,
)

TESTS = ("threshold",)


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_mechanism` (public quantities only).

    ``passed`` is ``epsilon_lower_bound <= claimed_epsilon`` and, when a
    verification ran, that it passed too.
    """

    epsilon_lower_bound: float
    claimed_epsilon: float
    claimed_delta: float
    passed: bool
    confidence: float
    trials: int
    holdout_trials: int
    threshold: float
    event: str
    counts: tuple[int, int]
    test: str = "threshold"
    verification: dict[str, Any] | None = None
    info: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------- Clopper-Pearson


def clopper_pearson(k: Any, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    r"""One-sided Clopper-Pearson bounds at level ``alpha`` each: ``(lower, upper)`` for a binomial ``k/n``.

    lower = Beta(alpha; k, n-k+1) (0 if k = 0), upper = Beta(1-alpha; k+1, n-k) (1 if k = n).

    >>> lo, hi = clopper_pearson(50, 100, 0.025)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.3983, 0.6017)
    """
    n = check_int(n, "n", minimum=1)
    k = check_array(k, "k", allow_empty=True)
    if np.any((k < 0) | (k > n)):
        raise InvalidParameterError("k must lie in [0, n] (a count of successes out of n trials)")
    alpha = check_fraction(alpha, "alpha", 0.025)
    lo = np.where(k > 0, stats.beta.ppf(alpha, np.maximum(k, 1e-300), n - k + 1), 0.0)
    hi = np.where(k < n, stats.beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1e-300)), 1.0)
    return lo, hi


def _cp(k: Any, n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    k = np.asarray(k, dtype=float)
    lo = np.where(k > 0, stats.beta.ppf(alpha, np.maximum(k, 1e-300), n - k + 1), 0.0)
    hi = np.where(k < n, stats.beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1e-300)), 1.0)
    return lo, hi


def _eps_lower(k1: Any, k0: Any, n: int, alpha: float, delta: float) -> np.ndarray:
    p1_lo, _ = _cp(k1, n, alpha / 2)
    _, p0_hi = _cp(k0, n, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.where(p1_lo > delta, np.log(np.maximum(p1_lo - delta, 1e-300) / p0_hi), 0.0)
    return np.maximum(val, 0.0)


# ------------------------------------------------------------------ sampling


def _as_output(out: Any) -> np.ndarray:
    value = getattr(out, "value", out)
    arr = np.asarray(value, dtype=float)
    return arr.reshape(-1)


def _statistics(mechanism: Any, data: Any, gen: np.random.Generator, n: int, u: np.ndarray | None,
                batch_size: int) -> np.ndarray:
    """n projected outputs <M(data), u> (or raw flattened outputs when u is None)."""
    rows = []
    if hasattr(mechanism, "sample"):
        done = 0
        while done < n:
            b = min(batch_size, n - done)
            out = np.asarray(mechanism.sample(data, gen, b), dtype=float).reshape(b, -1)
            rows.append(out @ u if u is not None else out)
            done += b
    else:
        for _ in range(n):
            out = _as_output(mechanism(data, gen))
            rows.append(np.array([out @ u]) if u is not None else out[None, :])
    return np.concatenate(rows, axis=0)


def _direction(mechanism: Any, D: Any, D_prime: Any, gen: np.random.Generator, n_cal: int,
               batch_size: int) -> tuple[np.ndarray, str]:
    if hasattr(mechanism, "exact"):
        a = np.asarray(mechanism.exact(D), dtype=float).reshape(-1)
        b = np.asarray(mechanism.exact(D_prime), dtype=float).reshape(-1)
        return b - a, "noise-free outputs"
    m = max(2, min(n_cal, 20_000))
    a = _statistics(mechanism, D, gen, m, None, batch_size).mean(axis=0)
    b = _statistics(mechanism, D_prime, gen, m, None, batch_size).mean(axis=0)
    return b - a, "estimated from a separate calibration sample"


def audit_mechanism(mechanism: Any, D: Any, D_prime: Any, *, epsilon: float, delta: float,
                    trials: int = 200_000, rng: RngLike = None, test: str = "threshold",
                    confidence: float = 0.95, direction: Any = None,
                    calibration_fraction: float = 0.1, batch_size: int = 65_536,
                    verify: bool = True) -> AuditResult:
    r"""Audit the claim that ``mechanism`` is :math:`(\varepsilon, \delta)`-DP on the adjacent pair ``(D, D_prime)``.

    Parameters
    ----------
    mechanism : per-trial callable ``(data, rng) -> output`` or batched object with
        ``sample(data, rng, size)`` (see the module docstring).
    D, D_prime : adjacent inputs under the mechanism's stated adjacency (ideally a
        worst-case pair: output difference equal to the stated sensitivity).
    epsilon, delta : the claimed guarantee.
    trials : runs per input (split into calibration and hold-out).
    rng : SPEC 7; ``None`` = fresh OS entropy.
    test : ``"threshold"`` (Clopper-Pearson threshold test along the difference direction).
    confidence : :math:`1-\alpha`; a correct mechanism fails with probability at most :math:`\alpha`.
    direction : the projection direction (flattened output space); default: from
        ``mechanism.exact`` if available, else estimated on separate runs.
    calibration_fraction : share of the trials used to choose threshold and orientation.
    batch_size : trials per call of a batched mechanism.
    verify : run ``mechanism.verify`` (if it exists) and require it to pass.

    Returns
    -------
    AuditResult

    >>> from sosproj.privacy.calibration import gaussian_sigma
    >>> class Halved:  # batched toy: claims (1, 1e-6) but uses half the noise
    ...     s = gaussian_sigma(1.0, 1e-6) / 2
    ...     def sample(self, x, rng, size):
    ...         return x + self.s * rng.standard_normal((size, 1))
    ...     def exact(self, x):
    ...         return np.array([x])
    >>> audit_mechanism(Halved(), 0.0, 1.0, epsilon=1.0, delta=1e-6, trials=400_000, rng=1).passed
    False
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    trials = check_int(trials, "trials", minimum=100)
    check_choice(test, "test", TESTS)
    confidence = check_fraction(confidence, "confidence", 0.95)
    calibration_fraction = check_fraction(calibration_fraction, "calibration_fraction", 0.1)
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    if not (callable(mechanism) or hasattr(mechanism, "sample")):
        raise InputTypeError("mechanism must be a callable (data, rng) -> output or an object with "
                             "sample(data, rng, size)")
    gen = as_generator(rng)
    alpha = 1.0 - confidence
    n_cal = max(50, int(round(calibration_fraction * trials)))
    n_hold = trials - n_cal
    if n_hold < 50:
        raise InvalidParameterError("too few hold-out trials; raise trials or lower calibration_fraction")

    if direction is None:
        u, how = _direction(mechanism, D, D_prime, gen, n_cal, batch_size)
    else:
        u, how = np.asarray(direction, dtype=float).reshape(-1), "given"
    norm = float(np.linalg.norm(u))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidInputError("D and D_prime give the same expected output: no difference direction to "
                                "test; pass a pair that differs, or an explicit direction=")
    u = u / norm

    verification = None
    if verify and hasattr(mechanism, "verify"):
        verification = mechanism.verify(D, u, gen)

    # ---- calibration: choose threshold and orientation -------------------------------
    s0 = _statistics(mechanism, D, gen, n_cal, u, batch_size)
    s1 = _statistics(mechanism, D_prime, gen, n_cal, u, batch_size)
    pooled = np.sort(np.concatenate([s0, s1]))
    qs = np.linspace(0.0, 1.0, 801)[1:-1]
    cand = np.unique(np.quantile(pooled, qs))
    s0s, s1s = np.sort(s0), np.sort(s1)
    up0 = n_cal - np.searchsorted(s0s, cand, side="right")  # counts above tau
    up1 = n_cal - np.searchsorted(s1s, cand, side="right")
    lo0 = np.searchsorted(s0s, cand, side="left")            # counts below tau
    lo1 = np.searchsorted(s1s, cand, side="left")
    # score = the hold-out bound these calibration frequencies would give (counts rescaled to
    # the hold-out size; +0.5 keeps empty tails from looking perfect)
    r = n_hold / n_cal
    score_up = _eps_lower(up1 * r, (up0 + 0.5) * r, n_hold, alpha, delta)
    score_lo = _eps_lower(lo0 * r, (lo1 + 0.5) * r, n_hold, alpha, delta)
    # prefer the best calibration score; ties (e.g. all 0) go to the median threshold
    if score_up.max() >= score_lo.max():
        i = int(np.argmax(score_up)) if score_up.max() > 0 else len(cand) // 2
        tau, event = float(cand[i]), "upper"
    else:
        i = int(np.argmax(score_lo))
        tau, event = float(cand[i]), "lower"

    # ---- hold-out: the actual test ----------------------------------------------------
    h0 = _statistics(mechanism, D, gen, n_hold, u, batch_size)
    h1 = _statistics(mechanism, D_prime, gen, n_hold, u, batch_size)
    if event == "upper":
        k_big, k_small = int(np.count_nonzero(h1 > tau)), int(np.count_nonzero(h0 > tau))
        counts = (k_small, k_big)
    else:
        k_big, k_small = int(np.count_nonzero(h0 < tau)), int(np.count_nonzero(h1 < tau))
        counts = (k_big, k_small)
    eps_lb = float(_eps_lower(k_big, k_small, n_hold, alpha, delta))
    ok = eps_lb <= epsilon
    if verification is not None and not verification.get("passed", True):
        ok = False
    return AuditResult(epsilon_lower_bound=eps_lb, claimed_epsilon=epsilon, claimed_delta=delta,
                       passed=bool(ok), confidence=confidence, trials=trials, holdout_trials=n_hold,
                       threshold=tau, event=event, counts=counts, test=test, verification=verification,
                       info={"direction": how, "calibration_trials": n_cal,
                             "calibration_score": float(max(score_up.max(), score_lo.max()))})


# ------------------------------------------------------------------ adapters


@dataclass
class GaussianMeasurement:
    r"""Batched, auditable view of a sosproj mechanism's noisy measurement :math:`f(D) + \text{noise}`.

    Parameters
    ----------
    release : ``release(data, rng) -> release object``: the real mechanism, all
        privacy parameters bound, in a configuration whose output is the noisy
        measurement up to linear post-processing (e.g. ``method="gaussian"``).
    value : extracts the array from a release (default ``release.value``).
    noise_scale : the per-coordinate noise standard deviation of that array, from
        the release (default ``release.sigma``).
    noise : ``"gaussian"`` or ``"discrete"`` (integer discrete Gaussian, variance parameter ``scale**2``).
    verify_trials : real runs used by :meth:`verify`.

    >>> import numpy as np
    >>> from sosproj.mechanisms.perturb_and_project import perturb_and_project
    >>> from sosproj.sets import Box
    >>> mech = GaussianMeasurement(lambda A, rng: perturb_and_project(
    ...     A, Box(-1e9, 1e9), epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=rng))
    >>> mech.sample(np.zeros(2), np.random.default_rng(0), 3).shape
    (3, 2)
    """

    release: Callable[[Any, Any], Any]
    value: Callable[[Any], Any] | None = None
    noise_scale: Callable[[Any], float] | None = None
    noise: str = "gaussian"
    verify_trials: int = 200
    _cache: dict[int, tuple[Any, np.ndarray, float]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        check_choice(self.noise, "noise", ("gaussian", "discrete"))
        self.verify_trials = check_int(self.verify_trials, "verify_trials", minimum=10)

    def _extract(self, rel: Any) -> np.ndarray:
        v = self.value(rel) if self.value is not None else getattr(rel, "value", rel)
        return np.asarray(v, dtype=float)

    def _scale(self, rel: Any) -> float:
        return float(self.noise_scale(rel) if self.noise_scale is not None else rel.sigma)

    def _noise_free(self, data: Any) -> tuple[np.ndarray, float]:
        key = id(data)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is data:
            return hit[1], hit[2]
        with noise_disabled():
            rel = self.release(data, 0)
        out = (self._extract(rel), self._scale(rel))
        self._cache[key] = (data, *out)
        return out

    def exact(self, data: Any) -> np.ndarray:
        """The mechanism's noise-free output (its own code path, noise switched off)."""
        return self._noise_free(data)[0]

    def sample(self, data: Any, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` draws of the noisy measurement, noise from :mod:`sosproj.privacy`."""
        value, scale = self._noise_free(data)
        shape = (size, *value.shape)
        if self.noise == "discrete":
            from sosproj.privacy.discrete_gaussian import sample_discrete_gaussian

            z = sample_discrete_gaussian(shape, scale * scale, rng).astype(float)
        else:
            z = gaussian_noise(shape, scale, rng)
        return value[None, ...] + z

    def verify(self, data: Any, direction: np.ndarray, rng: np.random.Generator,
               level: float = 1e-3) -> dict[str, Any]:
        r"""Check the real mechanism's noise along ``direction`` against the model.

        Runs the real mechanism ``verify_trials`` times; with :math:`r_t` the residual
        along the unit ``direction`` and :math:`s` the model scale, tests
        :math:`\sum_t r_t^2/s^2 \sim \chi^2_T` (two-sided) and
        :math:`\sum_t r_t/(s\sqrt T) \sim N(0,1)` at level ``level`` each.
        """
        value, scale = self._noise_free(data)
        u = np.asarray(direction, dtype=float).reshape(-1)
        u = u / np.linalg.norm(u)
        T = self.verify_trials
        r = np.empty(T)
        for t in range(T):
            rel = self.release(data, rng)
            r[t] = (self._extract(rel).reshape(-1) - value.reshape(-1)) @ u
        chi = float(np.sum(r * r) / scale ** 2)
        p_var = float(2 * min(stats.chi2.cdf(chi, T), stats.chi2.sf(chi, T)))
        z = float(np.sum(r) / (scale * math.sqrt(T)))
        p_mean = float(2 * stats.norm.sf(abs(z)))
        return {"passed": bool(p_var > level and p_mean > level), "trials": T,
                "variance_ratio": chi / T, "p_variance": p_var, "p_mean": p_mean}


@contextlib.contextmanager
def under_noised(factor: float = 0.5) -> Iterator[None]:
    r"""TEST-ONLY negative control: every sosproj calibration returns ``factor`` times its sigma.

    Patches :func:`~sosproj.privacy.calibration.gaussian_sigma`, :func:`~sosproj.privacy.calibration.spec_sigma` and
    :func:`~sosproj.privacy.discrete_gaussian.discrete_gaussian_sigma` wherever a loaded
    sosproj module holds them, and restores them on exit; the mechanisms then
    report and draw the reduced sigma, so a sound audit must fail. Not thread-safe.

    >>> from sosproj.privacy.calibration import gaussian_sigma
    >>> s = gaussian_sigma(1.0, 1e-6)
    >>> with under_noised(0.5):
    ...     from sosproj.privacy import calibration
    ...     calibration.gaussian_sigma(1.0, 1e-6) == s / 2
    True
    """
    factor = check_positive(factor, "factor")
    from sosproj.privacy import calibration, discrete_gaussian

    originals = {"gaussian_sigma": calibration.gaussian_sigma, "spec_sigma": calibration.spec_sigma,
                 "discrete_gaussian_sigma": discrete_gaussian.discrete_gaussian_sigma}

    def scaled(fn: Callable[..., float]) -> Callable[..., float]:
        def wrapper(*args: Any, **kwargs: Any) -> float:
            return factor * fn(*args, **kwargs)
        return wrapper

    patched: list[tuple[Any, str, Any]] = []
    for mod_name, module in list(sys.modules.items()):
        if not (mod_name == "sosproj" or mod_name.startswith("sosproj.")) or module is None:
            continue
        for name, fn in originals.items():
            if vars(module).get(name) is fn:
                patched.append((module, name, fn))
                setattr(module, name, scaled(fn))
    try:
        yield
    finally:
        for module, name, fn in patched:
            setattr(module, name, fn)


# ------------------------------------------------------- library mechanisms


@dataclass(frozen=True)
class AuditTarget:
    """A library mechanism ready to audit: the batched measurement and a worst-case adjacent pair."""

    name: str
    mechanism: GaussianMeasurement
    D: Any
    D_prime: Any
    adjacency: str


def standard_targets(epsilon: float, delta: float) -> dict[str, AuditTarget]:
    r"""Every sosproj mechanism wrapped for :func:`audit_mechanism` at the claim ``(epsilon, delta)``.

    Each target pairs the mechanism's noisy measurement (noise-only configuration,
    :class:`GaussianMeasurement`) with a **worst-case** adjacent pair under the
    mechanism's stated adjacency: the measured difference has norm exactly the
    stated sensitivity, so the audit tests the calibration where it is tight.

    * ``perturb_and_project``: caller's adjacency :math:`\|A - A'\|_F \le \Delta = 1`;
      :math:`A = 0`, :math:`A' = (0.6, 0.8, 0, 0)`; ``S = Box(-1e9, 1e9)`` (the projection
      is post-processing, so the audited quantity is :math:`A + W`).
    * ``cosine``: :math:`\|UU^T - U'U'^T\|_F \le \Delta`; one of three unit vectors turned by 90
      degrees, :math:`\Delta = 2` (the pair's exact distance), ``method="gaussian"``.
    * ``marginals``: replace-one, ``k = 1``, ``method="gaussian"`` (the answers are the whole
      measurement :math:`Y/\text{scale}`); a row replaced by its complement moves
      :math:`T` by exactly the sensitivity :math:`1/m`.
    * ``tables`` / ``tables_discrete``: replace-one, 1-way tables of 2 attributes; the row
      ``(0, 0)`` replaced by ``(1, 1)`` moves each table by one count between two cells,
      norm :math:`\sqrt{2 \cdot 2}` = the sensitivity; Gaussian or discrete Gaussian noise.

    >>> sorted(standard_targets(1.0, 1e-6))
    ['cosine', 'marginals', 'perturb_and_project', 'tables', 'tables_discrete']
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    from sosproj.mechanisms.cosine import normalize_rows, release_cosine_similarities
    from sosproj.mechanisms.marginal_tables import release_tables
    from sosproj.mechanisms.marginals import release_marginals
    from sosproj.mechanisms.perturb_and_project import perturb_and_project
    from sosproj.sets import Box

    out: dict[str, AuditTarget] = {}
    box = Box(-1e9, 1e9)

    def pap(data: Any, rng: Any) -> Any:
        return perturb_and_project(data, box, epsilon=epsilon, delta=delta, sensitivity=1.0, rng=rng)

    out["perturb_and_project"] = AuditTarget("perturb_and_project", GaussianMeasurement(pap), np.zeros(4),
                                             np.array([0.6, 0.8, 0.0, 0.0]), "||A - A'||_F <= 1 (caller's)")

    V = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    V2 = V.copy()
    V2[0] = [0.0, 1.0]
    U, U2 = normalize_rows(V), normalize_rows(V2)
    sens = float(np.linalg.norm(U @ U.T - U2 @ U2.T))

    def cos(data: Any, rng: Any) -> Any:
        return release_cosine_similarities(data, epsilon=epsilon, delta=delta, sensitivity=sens,
                                           method="gaussian", rng=rng)

    out["cosine"] = AuditTarget("cosine", GaussianMeasurement(cos), V, V2,
                                "||UU^T - U'U'^T||_F <= sensitivity (= 2 for this pair)")

    D = np.random.default_rng(5).integers(0, 2, size=(50, 4))
    D2 = D.copy()
    D2[0] = 1 - D[0]

    def marg(data: Any, rng: Any) -> Any:
        return release_marginals(data, 1, epsilon=epsilon, delta=delta, method="gaussian", rng=rng)

    out["marginals"] = AuditTarget(
        "marginals", GaussianMeasurement(marg, value=lambda r: r.moments[1:],
                                         noise_scale=lambda r: r.sigma / r.info["scale"]),
        D, D2, "replace-one (m public)")

    T = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [1, 0]])
    T2 = T.copy()
    T2[0] = [1, 1]
    for name, noise in (("tables", "gaussian"), ("tables_discrete", "discrete")):
        def tab(data: Any, rng: Any, noise: str = noise) -> Any:
            return release_tables(data, 1, epsilon=epsilon, delta=delta, rng=rng, noise=noise, max_iter=200)

        out[name] = AuditTarget(name, GaussianMeasurement(tab, value=lambda r: r.info["measured_cells"],
                                                          noise=noise, verify_trials=60),
                                T, T2, "replace-one (m public)")
    return out


__all__ = ["audit_mechanism", "AuditResult", "AuditTarget", "GaussianMeasurement", "clopper_pearson",
           "standard_targets", "under_noised", "TESTS"]

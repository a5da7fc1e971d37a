r"""Black-box privacy audit: sample the real release function end to end on adjacent inputs.

The audit takes a release callable ``f(data, rng) -> release`` (the mechanism as users
call it, every privacy parameter bound), a pair of adjacent inputs :math:`D, D'`
(constructed to be worst case for the mechanism's stated adjacency) and a claimed
:math:`(\varepsilon, \delta)`. It runs ``f`` ``trials`` times on each input (in
parallel across processes with joblib, one independent generator per chunk from
:class:`numpy.random.SeedSequence`), splits the runs into a calibration and a hold-out
part, and tests one event chosen on the calibration part on the hold-out part.

Events (chosen on calibration, so the hold-out test is a single test)
---------------------------------------------------------------------
Every output is flattened to a vector :math:`x`. The statistics are

* the projection :math:`\langle x, u\rangle` on the worst direction
  :math:`u = f_0(D') - f_0(D)`, the difference of the **noise-free** outputs (``f`` run
  inside :func:`~sosproj.testing.noise_disabled`; ``direction="means"`` uses the
  calibration means instead, for callables whose noise does not come from sosproj);
  for a Gaussian mechanism this is the likelihood-ratio statistic, so its threshold
  events are the Neyman-Pearson optimal tests;
* the coordinates :math:`x_i` with the largest :math:`|u_i|` (up to ``max_coordinates``):
  a bounded noise (uniform) hides in a sum of coordinates but not in each one.

The events are threshold events :math:`\{s > \tau\}` and :math:`\{s < \tau\}` of each
statistic :math:`s` (both orientations of the pair; :math:`\tau` over calibration
quantiles and the calibration extremes, so a bounded support is seen), and *atom*
events :math:`\{s \in A\}` with :math:`A` the values that occur under one input and
never under the other in the calibration runs (a noise on a lattice, e.g. snapped to a
float grid, gives disjoint supports; continuous outputs never repeat and give no atoms).

Selection rule (``selection="split"``, the default). A candidate event :math:`E`
with :math:`k_1` calibration hits under the input where it is more likely and :math:`k_0`
under the other, out of :math:`n_c` calibration runs per input, gets the score

.. math:: \mathrm{score}(E) = \Phi^{-1}\big(\underline{p}(k_1; n_c)\big)
          - \Phi^{-1}\big(\overline{p}(k_0 + \tfrac12; n_c)\big)

(``profile="point"``: :math:`\ln((\underline{p} - \delta)/\overline{p})`), i.e. the bound of
the hold-out test below computed on the calibration runs at their own size (the
:math:`+\frac12` keeps an empty calibration tail from looking perfect); the event with the
largest score is tested on the hold-out runs. Scoring at the size of the sample that produced
the counts charges every candidate its real uncertainty: a tail event whose few calibration
hits were lucky gets a wide interval and loses to a central event, which for a Gaussian shift
is as informative (:math:`\Phi^{-1}(p_1) - \Phi^{-1}(p_0) = \mu` at every threshold) and far
better determined. The former rule (``selection="rescaled"``) scored the counts rescaled to
the hold-out size, :math:`(r k_1, r(k_0 + \frac12))` out of :math:`n_h = r n_c`: the
intervals shrink by about :math:`\sqrt r` while the counts keep the noise of :math:`n_c`
runs, so lucky tails won. The same over-fitting grows with the number of candidates, so the
shipped rule also uses 19 calibration quantiles per statistic (5% steps, plus the
calibration extremes that see a bounded support) where the former used 199
(``benchmarks/audit_selection_study.py``, 200 seeds of :math:`\sigma\times0.7` at 12,000
runs per input: caught in 70% of seeds by the former rule, 92% by the shipped one;
``docs/privacy.md`` quotes the stored output). Either way the selection reads only the
calibration runs, so the hold-out test is one test of one fixed event and its level
:math:`\alpha` holds whatever the rule.

Atom events are scored on a split of the calibration runs. Defined and counted on the same
runs, an atom set has :math:`k_0 = 0` by construction, so on a fine lattice (many values, each
seen a few times) the values seen under one input only *by chance* look perfectly separated and
win the selection, and the hold-out test of that chance set finds nothing (the previous rule,
``selection="calibration"``: on ``tables[discrete]`` it missed the uniform,
:math:`\sigma\times0.7` and sensitivity :math:`\times0.7` controls). The shipped rule splits the
:math:`n_c` calibration runs per input into halves :math:`C^{(1)}, C^{(2)}` of
:math:`h = \lfloor n_c/2\rfloor` runs: :math:`A` is the set of values seen under one input and
never under the other in :math:`C^{(1)}`, and its score is the bound above computed from its hits
:math:`k_1, k_0` in :math:`C^{(2)}` at size :math:`h`,

.. math:: \mathrm{score}(\{s \in A\}) = \Phi^{-1}\big(\underline{p}(k_1^{(2)}; h)\big)
          - \Phi^{-1}\big(\overline{p}(k_0^{(2)} + \tfrac12; h)\big),

an honest score, since :math:`C^{(2)}` is independent of :math:`A`: chance atoms are hit under
both inputs there, while disjoint supports (zero noise, a grid snapped to a float lattice) keep
:math:`k_0^{(2)} = 0`. Threshold events are scored as before on all :math:`n_c` runs; the event
tested on the hold-out runs is the chosen one (for an atom event, the set :math:`A` of
:math:`C^{(1)}`), so the hold-out test is unchanged.

Claims and bounds
-----------------
``profile="gaussian"`` (default): the mechanism claims to be at least as private as the
Gaussian mechanism whose profile passes through :math:`(\varepsilon, \delta)`, i.e.
:math:`\mu`-GDP (Dong, Roth and Su 2019) with :math:`\mu = 1/\sigma_{\mathrm{analytic}}
(\varepsilon, \delta, \Delta = 1)`: every sosproj mechanism (Gaussian noise of at least the
analytic :math:`\sigma`, then post-processing, which cannot increase the privacy loss)
makes this claim, and it implies :math:`(\varepsilon, \delta)`. :math:`\mu`-GDP holds
if and only if every event satisfies :math:`P_{D'}(E) \le \Phi(\Phi^{-1}(P_D(E)) + \mu)`,
so with one-sided Clopper-Pearson bounds :math:`\underline{p_1}` and
:math:`\overline{p_0}` (level :math:`\alpha/2` each)

.. math:: \hat\mu_{\mathrm{lb}} = \Phi^{-1}(\underline{p_1}) - \Phi^{-1}(\overline{p_0})

is a :math:`1-\alpha` lower confidence bound on the true :math:`\mu`; the audit fails if
:math:`\hat\mu_{\mathrm{lb}} > \mu`. The reported ``epsilon_lower_bound`` is the
:math:`\varepsilon` at the claimed :math:`\delta` of the Gaussian mechanism with
:math:`\hat\mu_{\mathrm{lb}}` (:func:`~sosproj.privacy.accountant.gaussian_epsilon`).
The whole profile is tested, not only its tail: an event of probability near one
half pins :math:`\mu` with a few thousand runs, where the tail event of the point claim
needs about a million (``docs/privacy.md``, "Audit power").

``profile="point"``: only :math:`(\varepsilon, \delta)`; the bound is
:math:`\hat\varepsilon_{\mathrm{lb}} = \ln((\underline{p_1} - \delta)/\overline{p_0})`
(the test of the grey-box audit), valid for any mechanism, far less powerful.

If the claim holds for this pair, the audit fails with probability at most
:math:`\alpha = 1 - \text{confidence}`. Passing proves nothing beyond "this test, with
this many runs, found no violation"; the detectable under-noising factor per mechanism
is stated in ``docs/privacy.md`` and pinned by the tests.

References: Ding et al., "Detecting violations of differential privacy" (CCS 2018);
Google's differential-privacy stochastic tester; Kong et al., "DP-Auditorium" (2024);
Nasr et al., "Tight auditing of differentially private machine learning" (2023).

>>> import numpy as np
>>> from sosproj.privacy.calibration import gaussian_sigma
>>> s = gaussian_sigma(1.0, 1e-6)
>>> def f(x, rng):
...     return x + s * rng.standard_normal(1)
>>> ok = audit_release(f, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=4000,
...                    direction="means", rng=0)
>>> ok.passed
True
>>> def leaky(x, rng):   # claims (1, 1e-6), adds a fifth of the noise
...     return x + 0.2 * s * rng.standard_normal(1)
>>> audit_release(leaky, np.zeros(1), np.ones(1), epsilon=1.0, delta=1e-6, trials=4000,
...               direction="means", rng=0).passed
False
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.privacy.accountant import gaussian_epsilon
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.rng import RngLike, as_generator
from sosproj.testing import noise_disabled
from sosproj.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_fraction,
    check_int,
    check_memory,
)

PROFILES = ("gaussian", "point")
DIRECTIONS = ("noise-free", "means")
SELECTIONS = ("split", "calibration", "rescaled")
#: thresholds per statistic of each selection rule (module docstring, "Selection rule")
DEFAULT_QUANTILES = {"split": 19, "calibration": 19, "rescaled": 199}


@dataclass(frozen=True)
class BlackBoxResult:
    """Outcome of :func:`audit_release` (public quantities only).

    ``bound`` is :math:`\\hat\\mu_{lb}` (``profile="gaussian"``) or
    :math:`\\hat\\varepsilon_{lb}` (``"point"``), ``claimed_bound`` the claimed
    :math:`\\mu` or :math:`\\varepsilon`; ``passed`` is ``bound <= claimed_bound``.
    ``epsilon_lower_bound`` is on the :math:`\\varepsilon` scale at the claimed
    :math:`\\delta` in both cases. ``event`` names the statistic and event tested,
    ``counts`` the hold-out hits ``(k_small, k_big)`` out of ``holdout_trials`` each.
    """

    passed: bool
    profile: str
    bound: float
    claimed_bound: float
    epsilon_lower_bound: float
    claimed_epsilon: float
    claimed_delta: float
    confidence: float
    trials: int
    holdout_trials: int
    event: str
    counts: tuple[int, int]
    info: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------- sampling


def _flatten_output(out: Any) -> np.ndarray:
    value = getattr(out, "value", out)
    return np.asarray(value, dtype=float).reshape(-1)


def _run_chunk(release: Callable[[Any, Any], Any], data: Any, seed: np.random.SeedSequence, count: int,
               output: Callable[[Any], Any] | None) -> np.ndarray:
    """``count`` runs of ``release(data, rng)`` with one generator; rows are flattened outputs."""
    gen = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        rel = release(data, gen)
        rows.append(_flatten_output(output(rel) if output is not None else rel))
    return np.vstack(rows)


def sample_release(release: Callable[[Any, Any], Any], data: Any, trials: int, *, rng: RngLike = None,
                   n_jobs: int = 1, chunk: int = 250, output: Callable[[Any], Any] | None = None
                   ) -> np.ndarray:
    """``trials`` independent runs of the real ``release(data, rng)``, as a ``(trials, d)`` array.

    Chunks of ``chunk`` runs go to ``n_jobs`` joblib processes (``n_jobs=1``: in this
    process); each chunk has its own generator spawned from ``rng``
    (:class:`numpy.random.SeedSequence`), so the result depends on ``rng`` and
    ``chunk`` but not on ``n_jobs``.

    >>> sample_release(lambda x, rng: x + rng.standard_normal(2), np.zeros(2), 5, rng=0).shape
    (5, 2)
    """
    trials = check_int(trials, "trials", minimum=1)
    n_jobs = check_int(n_jobs, "n_jobs", minimum=-1)
    chunk = check_int(chunk, "chunk", minimum=1)
    gen = as_generator(rng)
    counts = [chunk] * (trials // chunk) + ([trials % chunk] if trials % chunk else [])
    seeds = np.random.SeedSequence(int(gen.integers(2**63))).spawn(len(counts))
    if n_jobs == 1 or len(counts) == 1:
        parts = [_run_chunk(release, data, s, c, output) for s, c in zip(seeds, counts)]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=n_jobs)(delayed(_run_chunk)(release, data, s, c, output)
                                        for s, c in zip(seeds, counts))
    return np.vstack(parts)


def noise_free_output(release: Callable[[Any, Any], Any], data: Any,
                      output: Callable[[Any], Any] | None = None) -> np.ndarray:
    """The flattened output of ``release(data, 0)`` with every sosproj sampler returning zeros."""
    with noise_disabled():
        rel = release(data, 0)
    return _flatten_output(output(rel) if output is not None else rel)


# ------------------------------------------------------------------ the test


def _cp_lower(k: np.ndarray, n: int, a: float) -> np.ndarray:
    k = np.asarray(k, dtype=float)
    return np.where(k > 0, stats.beta.ppf(a, np.maximum(k, 1e-300), n - k + 1), 0.0)


def _cp_upper(k: np.ndarray, n: int, a: float) -> np.ndarray:
    k = np.asarray(k, dtype=float)
    return np.where(k < n, stats.beta.ppf(1 - a, k + 1, np.maximum(n - k, 1e-300)), 1.0)


def _bound(k_big: Any, k_small: Any, n: int, alpha: float, profile: str, delta: float) -> np.ndarray:
    """Lower confidence bound from hit counts of one event: mu (gaussian) or epsilon (point)."""
    p1 = _cp_lower(k_big, n, alpha / 2)
    p0 = _cp_upper(k_small, n, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        if profile == "gaussian":
            val = stats.norm.ppf(p1) - stats.norm.ppf(p0)
        else:
            val = np.log(np.maximum(p1 - delta, 1e-300) / p0)
            val = np.where(p1 > delta, val, -np.inf)
    return np.where(np.isfinite(val) | (val > 0), val, -np.inf)


def _threshold_counts(a: np.ndarray, b: np.ndarray, taus: np.ndarray) -> tuple[np.ndarray, ...]:
    """Hits of {s > tau} and {s < tau} for samples a and b at every tau."""
    sa, sb = np.sort(a), np.sort(b)
    up_a = a.size - np.searchsorted(sa, taus, side="right")
    up_b = b.size - np.searchsorted(sb, taus, side="right")
    lo_a = np.searchsorted(sa, taus, side="left")
    lo_b = np.searchsorted(sb, taus, side="left")
    return up_a, up_b, lo_a, lo_b


@dataclass(frozen=True)
class _Event:
    stat: int            # column of the statistics matrix
    kind: str            # "upper" | "lower" | "atoms"
    tau: float           # threshold (threshold events)
    atoms: np.ndarray    # atom values (atom events)
    big_is_prime: bool   # True: the event is more likely under D'
    score: float

    def hits(self, s: np.ndarray) -> int:
        if self.kind == "upper":
            return int(np.count_nonzero(s > self.tau))
        if self.kind == "lower":
            return int(np.count_nonzero(s < self.tau))
        return int(np.count_nonzero(np.isin(s, self.atoms)))

    def describe(self, names: list[str]) -> str:
        who = "D'" if self.big_is_prime else "D"
        if self.kind == "atoms":
            return f"{names[self.stat]} in {self.atoms.size} atoms seen only under {who}"
        op = ">" if self.kind == "upper" else "<"
        return f"{names[self.stat]} {op} {self.tau:.6g} (more likely under {who})"


def _choose_event(c0: np.ndarray, c1: np.ndarray, n_hold: int, alpha: float, profile: str,
                  delta: float, quantiles: int, selection: str = "split") -> _Event:
    """The event with the best calibration score (module docstring, "Selection rule").

    ``selection="split"``: the bound of the calibration counts at the calibration size, atom sets
    defined on one half of the calibration runs and scored on the other; ``"calibration"`` (the
    previous rule): the same with atom sets defined and scored on all calibration runs;
    ``"rescaled"`` (the former rule): the counts rescaled to the hold-out size ``n_hold``.
    """
    n_cal = c0.shape[0]
    r, n_score = (n_hold / n_cal, n_hold) if selection == "rescaled" else (1.0, n_cal)
    best: _Event | None = None
    qs = np.linspace(0.0, 1.0, quantiles + 2)[1:-1]
    for j in range(c0.shape[1]):
        a, b = c0[:, j], c1[:, j]
        taus = np.unique(np.concatenate([np.quantile(np.concatenate([a, b]), qs),
                                         [a.min(), a.max(), b.min(), b.max()]]))
        up_a, up_b, lo_a, lo_b = _threshold_counts(a, b, taus)
        # +0.5 keeps an empty calibration tail from looking perfect
        for kind, big, small, prime in (("upper", up_b, up_a, True), ("upper", up_a, up_b, False),
                                        ("lower", lo_b, lo_a, True), ("lower", lo_a, lo_b, False)):
            sc = _bound(big * r, (small + 0.5) * r, n_score, alpha, profile, delta)
            i = int(np.argmax(sc))
            if best is None or sc[i] > best.score:
                best = _Event(j, kind, float(taus[i]), np.empty(0), prime, float(sc[i]))
        ua, ca = np.unique(a, return_counts=True)
        ub, cb = np.unique(b, return_counts=True)
        if (ca.max(initial=0) > 1 or cb.max(initial=0) > 1) and selection == "split":   # a lattice
            # atoms defined on the first half of the calibration runs, scored on the second half: the
            # score of an atom set is then an honest bound (values seen under one input only by chance
            # in the first half are hit under both inputs in the second)
            h = n_cal // 2
            a1, a2, b1, b2 = a[:h], a[h:2 * h], b[:h], b[h:2 * h]
            u1a, u1b = np.unique(a1), np.unique(b1)
            for atoms_big, x_big, x_small, prime in ((np.setdiff1d(u1b, u1a), b2, a2, True),
                                                     (np.setdiff1d(u1a, u1b), a2, b2, False)):
                if atoms_big.size == 0:
                    continue
                k_big = np.count_nonzero(np.isin(x_big, atoms_big))
                k_small = np.count_nonzero(np.isin(x_small, atoms_big))
                sc = float(_bound(k_big, k_small + 0.5, h, alpha, profile, delta))
                if sc > best.score:
                    best = _Event(j, "atoms", math.nan, atoms_big, prime, sc)
        elif ca.max(initial=0) > 1 or cb.max(initial=0) > 1:   # repeated values: a lattice
            # atoms seen only under one input: no calibration hit under the other by construction
            # (the earlier rules: the score over-fits, module docstring)
            for atoms_big, x_big, prime in ((np.setdiff1d(ub, ua), b, True), (np.setdiff1d(ua, ub), a, False)):
                if atoms_big.size == 0:
                    continue
                k_big = np.count_nonzero(np.isin(x_big, atoms_big))
                sc = float(_bound(k_big * r, 0.5 * r, n_score, alpha, profile, delta))
                if sc > best.score:
                    best = _Event(j, "atoms", math.nan, atoms_big, prime, sc)
    assert best is not None
    return best


def claimed_mu(epsilon: float, delta: float) -> float:
    r""":math:`\mu` of the Gaussian mechanism whose profile passes through :math:`(\varepsilon, \delta)`.

    :math:`\mu = \Delta/\sigma` with the analytic calibration (Balle and Wang 2018).

    >>> round(claimed_mu(1.0, 1e-6), 4)
    0.2367
    """
    return 1.0 / gaussian_sigma(check_epsilon(epsilon), check_delta(delta), 1.0, calibration="analytic")


def audit_release(release: Callable[[Any, Any], Any], D: Any, D_prime: Any, *, epsilon: float, delta: float,
                  trials: int = 20_000, profile: str = "gaussian", confidence: float = 0.95,
                  rng: RngLike = None, n_jobs: int = 1, direction: Any = "noise-free",
                  output: Callable[[Any], Any] | None = None, calibration_fraction: float = 0.3,
                  max_coordinates: int = 8, quantiles: int | None = None, chunk: int = 250,
                  selection: str = "split") -> BlackBoxResult:
    r"""Black-box audit of the claim that ``release`` is :math:`(\varepsilon,\delta)`-DP on ``(D, D_prime)``.

    Parameters
    ----------
    release : ``release(data, rng) -> release object or array``: the real mechanism with every
        privacy parameter bound (must be picklable for ``n_jobs != 1``; module-level functions
        and :func:`functools.partial` of them are).
    D, D_prime : adjacent inputs, ideally worst case for the mechanism's stated adjacency.
    epsilon, delta : the claim.
    trials : runs per input (calibration plus hold-out).
    profile : ``"gaussian"`` (the Gaussian profile through the claim, i.e. :math:`\mu`-GDP) or
        ``"point"`` (only :math:`(\varepsilon, \delta)`); module docstring.
    confidence : :math:`1-\alpha`; a mechanism that meets the claim fails with probability
        at most :math:`\alpha`.
    rng : SPEC 7; ``None`` = fresh OS entropy.
    n_jobs : joblib processes for the sampling (``-1``: all cores).
    direction : ``"noise-free"`` (default; ``release`` under
        :func:`~sosproj.testing.noise_disabled`), ``"means"`` (calibration means) or
        an explicit vector of the flattened output's length.
    output : extracts the array to audit from a release (default: ``.value`` or the object).
    calibration_fraction : share of the runs used to choose the event.
    max_coordinates : coordinates (largest :math:`|u_i|`) tested besides the projection.
    quantiles : thresholds per statistic (calibration quantiles, plus the extremes); default
        :data:`DEFAULT_QUANTILES` of the selection rule (19 for ``"split"`` and ``"calibration"``,
        199 for ``"rescaled"``, the former rule exactly).
    chunk : runs per joblib task.
    selection : how the calibration runs score the candidate events: ``"split"`` (default; bound
        at the calibration size, atom sets defined on one half of the calibration runs and scored
        on the other), ``"calibration"`` (the previous rule: atom sets scored on the runs that
        define them, which over-fits on lattice outputs) or ``"rescaled"`` (the former rule, counts
        rescaled to the hold-out size); all valid tests, module docstring.

    Returns
    -------
    BlackBoxResult
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    trials = check_int(trials, "trials", minimum=200)
    check_choice(profile, "profile", PROFILES)
    check_choice(selection, "selection", SELECTIONS)
    confidence = check_fraction(confidence, "confidence", 0.95)
    calibration_fraction = check_fraction(calibration_fraction, "calibration_fraction", 0.3)
    max_coordinates = check_int(max_coordinates, "max_coordinates", minimum=0)
    quantiles = DEFAULT_QUANTILES[selection] if quantiles is None else check_int(quantiles, "quantiles", minimum=1)
    if not callable(release):
        raise InputTypeError("release must be a callable release(data, rng) -> release or array")
    if isinstance(direction, str):
        check_choice(direction, "direction", DIRECTIONS)
    n_cal = max(100, int(round(calibration_fraction * trials)))
    n_hold = trials - n_cal
    if n_hold < 100:
        raise InvalidParameterError("too few hold-out runs; raise trials or lower calibration_fraction")
    gen = as_generator(rng)
    alpha = 1.0 - confidence

    same_size = ("the outputs on D and D_prime have different sizes; the audit needs one output space "
                 "(pass an output= that extracts it)")
    no_direction = ("D and D_prime give the same noise-free output: no direction to test; pass a pair that "
                    "differs, or direction='means' or an explicit vector")
    if isinstance(direction, str) and direction == "noise-free":
        f0, f1 = noise_free_output(release, D, output), noise_free_output(release, D_prime, output)
        if f0.shape != f1.shape:
            raise InvalidInputError(same_size)
        u, how = f1 - f0, "noise-free outputs"
    elif isinstance(direction, str):
        u, how = None, "calibration means"
    else:
        u, how = np.asarray(direction, dtype=float).reshape(-1), "given"
    if u is not None:
        if not np.all(np.isfinite(u)) or not np.any(u):
            raise InvalidInputError(no_direction)
        check_memory(8.0 * 2 * trials * u.size, "the audit's stored outputs")

    x0 = sample_release(release, D, trials, rng=gen, n_jobs=n_jobs, chunk=chunk, output=output)
    x1 = sample_release(release, D_prime, trials, rng=gen, n_jobs=n_jobs, chunk=chunk, output=output)
    if x0.shape != x1.shape:
        raise InvalidInputError(same_size)
    if u is None:
        u = x1[:n_cal].mean(axis=0) - x0[:n_cal].mean(axis=0)
    if u.size != x0.shape[1]:
        raise InvalidParameterError(f"direction has {u.size} entries, the flattened output {x0.shape[1]}; "
                                    "pass one entry per output coordinate")
    norm = float(np.linalg.norm(u))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidInputError(no_direction)
    u = u / norm
    coords = [int(i) for i in np.argsort(-np.abs(u))[:max_coordinates] if abs(u[i]) > 1e-12 * 1.0]
    names = ["<x, u>"] + [f"x[{i}]" for i in coords]

    def stats_of(x: np.ndarray) -> np.ndarray:
        return np.column_stack([x @ u, *(x[:, i] for i in coords)])

    s0, s1 = stats_of(x0), stats_of(x1)
    event = _choose_event(s0[:n_cal], s1[:n_cal], n_hold, alpha, profile, delta, quantiles, selection)
    h0, h1 = s0[n_cal:, event.stat], s1[n_cal:, event.stat]
    if event.big_is_prime:
        k_big, k_small = event.hits(h1), event.hits(h0)
    else:
        k_big, k_small = event.hits(h0), event.hits(h1)
    bound = float(_bound(k_big, k_small, n_hold, alpha, profile, delta))
    if profile == "gaussian":
        claim = claimed_mu(epsilon, delta)
        eps_lb = gaussian_epsilon(bound, delta) if bound > 0 else 0.0
    else:
        claim = epsilon
        eps_lb = max(bound, 0.0)
    return BlackBoxResult(
        passed=bool(bound <= claim), profile=profile, bound=bound, claimed_bound=claim,
        epsilon_lower_bound=float(eps_lb), claimed_epsilon=epsilon, claimed_delta=delta,
        confidence=confidence, trials=trials, holdout_trials=n_hold, event=event.describe(names),
        counts=(k_small, k_big),
        info={"direction": how, "calibration_trials": n_cal, "calibration_score": event.score,
              "statistics": len(names), "selection": selection,
              "quantiles": quantiles})


__all__ = ["audit_release", "BlackBoxResult", "sample_release", "noise_free_output", "claimed_mu",
           "PROFILES", "DIRECTIONS", "SELECTIONS", "DEFAULT_QUANTILES"]

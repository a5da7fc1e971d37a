"""Empirical privacy audit: passes every mechanism at its claim, catches sigma halved.

Every library mechanism is audited on its noisy measurement (the projection is
post-processing) through :class:`sosproj.audit.GaussianMeasurement`, on a worst-case
adjacent pair under the mechanism's stated adjacency (output difference = stated
sensitivity). The negative control :func:`sosproj.audit.under_noised` halves the sigma
that the mechanism computes, reports and draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sosproj.audit import (
    AuditResult,
    GaussianMeasurement,
    audit_mechanism,
    clopper_pearson,
    standard_targets,
    under_noised,
)
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.privacy.calibration import gaussian_sigma

CLAIMS = [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)]
TRIALS = 400_000


# ------------------------------------------------------------------- targets

NAMES = ["perturb_and_project", "cosine", "marginals", "tables", "tables_discrete"]
# every mechanism at every claim; the discrete-noise variant of release_tables (the slowest to
# simulate: ~1.5 us per exact discrete Gaussian sample) at one claim to stay in the time budget
CASES = [(name, eps, delta) for name in NAMES for eps, delta in CLAIMS
         if name != "tables_discrete" or eps == 1.0]


@pytest.mark.parametrize("name,eps,delta", CASES)
def test_library_mechanisms_pass_and_halved_fail(name: str, eps: float, delta: float) -> None:
    target = standard_targets(eps, delta)[name]
    mech, D, D2 = target.mechanism, target.D, target.D_prime
    # the pair is worst case: the measured difference equals the stated sensitivity
    rel = mech.release(D, 0)
    diff = np.linalg.norm(mech.exact(D2) - mech.exact(D))
    scale = mech._scale(rel)
    assert diff / scale == pytest.approx(rel.sensitivity / rel.sigma, rel=1e-9)

    trials = 250_000 if name == "tables_discrete" else TRIALS
    good = audit_mechanism(mech, D, D2, epsilon=eps, delta=delta, trials=trials, rng=1)
    assert good.passed, good
    assert good.verification is not None and good.verification["passed"]
    assert good.epsilon_lower_bound <= eps

    with under_noised(0.5):
        bad_mech = standard_targets(eps, delta)[name].mechanism
        bad = audit_mechanism(bad_mech, D, D2, epsilon=eps, delta=delta, trials=trials, rng=2)
    assert not bad.passed, bad
    assert bad.epsilon_lower_bound > eps
    assert bad.verification["passed"]  # it is the calibration that is wrong, not the noise draw


# --------------------------------------------------------------------- toys


class _Toy:
    """Batched 1-D Gaussian mechanism x + N(0, s^2); sensitivity 1."""

    def __init__(self, s: float) -> None:
        self.s = s

    def sample(self, x: float, rng: np.random.Generator, size: int) -> np.ndarray:
        return x + self.s * rng.standard_normal((size, 1))

    def exact(self, x: float) -> np.ndarray:
        return np.array([x])


@pytest.mark.parametrize("eps,delta", CLAIMS)
def test_toy_gaussian(eps: float, delta: float) -> None:
    s = gaussian_sigma(eps, delta)
    assert audit_mechanism(_Toy(s), 0.0, 1.0, epsilon=eps, delta=delta, trials=TRIALS, rng=3).passed
    bad = audit_mechanism(_Toy(s / 2), 0.0, 1.0, epsilon=eps, delta=delta, trials=TRIALS, rng=4)
    assert not bad.passed and bad.epsilon_lower_bound > eps


def test_lower_bound_is_below_true_epsilon_of_the_mechanism() -> None:
    """Sanity of the statistics: for sigma/2 the true epsilon at delta is known exactly; the lower
    bound must not exceed it (over several seeds)."""
    from sosproj.privacy.accountant import gaussian_epsilon

    s = gaussian_sigma(1.0, 1e-6) / 2
    true_eps = gaussian_epsilon(1 / s, 1e-6)
    for seed in range(5):
        res = audit_mechanism(_Toy(s), 0.0, 1.0, epsilon=1.0, delta=1e-6, trials=200_000, rng=seed)
        assert 1.0 < res.epsilon_lower_bound < true_eps


def test_black_box_per_trial_callable_and_estimated_direction() -> None:
    s = gaussian_sigma(2.0, 1e-6)

    def mech(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return x + s * rng.standard_normal(2)

    D, D2 = np.zeros(2), np.array([1.0, 0.0])
    res = audit_mechanism(mech, D, D2, epsilon=2.0, delta=1e-6, trials=4000, rng=5)
    assert isinstance(res, AuditResult) and res.passed
    assert res.info["direction"].startswith("estimated")
    # an obviously non-private mechanism (no noise at all) is refuted even with few trials
    leak = audit_mechanism(lambda x, rng: x + 1e-3 * rng.standard_normal(2), D, D2, epsilon=2.0,
                           delta=1e-6, trials=2000, rng=6)
    assert not leak.passed and leak.epsilon_lower_bound > 2.0


def test_verify_catches_mechanism_that_misreports_sigma() -> None:
    """Reports sigma but draws sigma/2: the calibration is right, the noise is not."""
    from sosproj.mechanisms.release import Release

    s = gaussian_sigma(1.0, 1e-6)

    def lying(x: np.ndarray, rng: object) -> Release:
        from sosproj.privacy.noise import gaussian_noise

        value = x + gaussian_noise(x.shape, s / 2, rng)
        return Release(value=value, sigma=s, epsilon=1.0, delta=1e-6, sensitivity=1.0,
                       calibration="analytic", mechanism="lying")

    mech = GaussianMeasurement(lying)
    res = audit_mechanism(mech, np.zeros(2), np.array([1.0, 0.0]), epsilon=1.0, delta=1e-6,
                          trials=20_000, rng=7)
    assert not res.verification["passed"]
    assert res.verification["variance_ratio"] == pytest.approx(0.25, rel=0.3)
    assert not res.passed


def test_clopper_pearson_reference_values() -> None:
    """Clopper-Pearson exact intervals: 95% two-sided for 0/10 is [0, 0.3085], for 10/10 [0.6915, 1]."""
    lo, hi = clopper_pearson(0, 10, 0.025)
    assert lo == 0.0 and hi == pytest.approx(0.30850, abs=1e-5)
    lo, hi = clopper_pearson(10, 10, 0.025)
    assert lo == pytest.approx(0.69150, abs=1e-5) and hi == 1.0
    # coverage by simulation: the lower bound misses p at most alpha of the time
    gen = np.random.default_rng(0)
    k = gen.binomial(200, 0.3, size=4000)
    lo, hi = clopper_pearson(k, 200, 0.05)
    assert np.mean(lo > 0.3) <= 0.05 and np.mean(hi < 0.3) <= 0.05


def test_audit_argument_errors() -> None:
    with pytest.raises(InvalidParameterError):
        audit_mechanism(_Toy(1.0), 0.0, 1.0, epsilon=0.0, delta=1e-6)
    with pytest.raises(InvalidParameterError):
        audit_mechanism(_Toy(1.0), 0.0, 1.0, epsilon=1.0, delta=1e-6, test="likelihood")
    with pytest.raises(InvalidParameterError):
        audit_mechanism(_Toy(1.0), 0.0, 1.0, epsilon=1.0, delta=1e-6, confidence=1.5)
    with pytest.raises(InputTypeError):
        audit_mechanism(42, 0.0, 1.0, epsilon=1.0, delta=1e-6)
    with pytest.raises(InvalidInputError, match="same expected output"):
        audit_mechanism(_Toy(1.0), 1.0, 1.0, epsilon=1.0, delta=1e-6, trials=1000)
    assert math.isfinite(audit_mechanism(_Toy(1.0), 0.0, 1.0, epsilon=1.0, delta=1e-6, trials=1000,
                                         rng=0).threshold)

"""Gaussian-complexity estimates against closed forms, determinism across backends, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from joblib import parallel_config
from scipy.special import gammaln

from sosproj.certificates import ComplexityEstimate, gaussian_complexity
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError, ProjectionError
from sosproj.sets import Box, FrobeniusBall, PSDCone, Spectraplex
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult


def test_spectraplex_matches_independent_lambda_max_reference():
    n = 4
    est = gaussian_complexity(Spectraplex(1.0), shape=(n, n), trials=400, rng=11)
    # independent reference: E max(lambda_max(sym W), 0) from a large batch of draws,
    # W with i.i.d. N(0,1) entries over the full n x n array (not symmetrized before drawing)
    W = np.random.default_rng(12345).standard_normal((100_000, n, n))
    lam = np.linalg.eigvalsh(0.5 * (W + np.swapaxes(W, 1, 2)))[:, -1]
    ref = float(np.maximum(lam, 0.0).mean())
    assert est.ci_low <= ref <= est.ci_high
    assert est.stderr < 0.05 * ref


def test_box_matches_expected_l1_norm():
    shape = (6, 5)
    est = gaussian_complexity(Box(-1.0, 1.0), shape=shape, trials=300, rng=3)
    exact = 30 * math.sqrt(2 / math.pi)
    assert est.contains(exact)
    assert est.shape == shape and est.trials == 300 and est.values.shape == (300,)


def test_frobenius_ball_is_about_sqrt_dimension():
    d = 49
    est = gaussian_complexity(FrobeniusBall(1.0), shape=(7, 7), trials=300, rng=5)
    exact = math.sqrt(2) * math.exp(gammaln((d + 1) / 2) - gammaln(d / 2))  # E||W||_F, chi mean
    assert est.contains(exact)
    assert abs(est.mean - math.sqrt(d)) < 0.05 * math.sqrt(d)


def test_interval_coverage_is_close_to_nominal():
    truth = 3 * math.sqrt(2 / math.pi)
    hits = [gaussian_complexity(Box(-1, 1), shape=(3,), trials=30, rng=seed).contains(truth)
            for seed in range(40)]
    assert 0.85 <= np.mean(hits) <= 1.0


def test_same_seed_same_values_serial_and_joblib():
    S = Spectraplex(1.0, n=5)
    a = gaussian_complexity(S, trials=40, rng=7)
    # threads keep the test fast (loky's worker start-up costs seconds); the chunking,
    # seeding and reassembly are the same code path for every joblib backend
    with parallel_config(backend="threading"):
        b = gaussian_complexity(S, trials=40, rng=7, n_jobs=2)
    np.testing.assert_array_equal(a.values, b.values)
    assert b.info["backend"].startswith("joblib")
    c = gaussian_complexity(S, trials=40, rng=8)
    assert not np.array_equal(a.values, c.values)


def test_shape_resolution_and_argument_errors():
    with pytest.raises(InvalidParameterError, match="shape"):
        gaussian_complexity(Box(-1, 1), trials=5, rng=0)
    with pytest.raises(InvalidParameterError, match="disagrees"):
        gaussian_complexity(Spectraplex(1.0, n=3), shape=(4, 4), trials=5, rng=0)
    with pytest.raises(InvalidParameterError, match="square"):
        gaussian_complexity(Spectraplex(1.0), shape=(3, 4), trials=5, rng=0)
    with pytest.raises(InvalidInputError, match="unbounded"):
        gaussian_complexity(PSDCone(3), trials=5, rng=0)
    with pytest.raises(InvalidParameterError, match="trials"):
        gaussian_complexity(Box(-1, 1), shape=3, trials=1, rng=0)
    with pytest.raises(InvalidParameterError, match="confidence"):
        gaussian_complexity(Box(-1, 1), shape=3, trials=5, rng=0, confidence=1.5)
    with pytest.raises(InputTypeError):
        gaussian_complexity(object(), shape=3, trials=5, rng=0)
    with pytest.raises(InputTypeError, match="scheduler"):
        gaussian_complexity(Box(-1, 1), shape=3, trials=5, rng=0, scheduler=42)


class _FlakySupport(ConvexSet):
    """Box-like set whose support solver reports non-convergence on every other call."""

    def __init__(self) -> None:
        self.shape = (3,)
        self.calls = 0

    def _project(self, Y, **options):
        return np.clip(Y, -1, 1), ProjectionInfo("closed-form")

    def _support(self, W, **options):
        self.calls += 1
        return SupportResult(float(np.abs(W).sum()), np.sign(W), {"converged": self.calls % 2 == 0})

    def _violation(self, X):
        return float(np.max(np.abs(X)) - 1)


class _InfiniteSupport(_FlakySupport):
    def _support(self, W, **options):
        return SupportResult(float("inf"), None, {})


def test_unconverged_supports_are_never_silently_accepted():
    with pytest.raises(ProjectionError, match="did not converge"):
        gaussian_complexity(_FlakySupport(), trials=10, rng=0)
    est = gaussian_complexity(_FlakySupport(), trials=10, rng=0, on_fail="return")
    assert est.info["n_unconverged"] == 5
    with pytest.raises(InvalidInputError, match="infinite"):
        gaussian_complexity(_InfiniteSupport(), trials=4, rng=0)


def test_estimate_from_values_and_dict():
    e = ComplexityEstimate.from_values(np.array([1.0, 3.0]), confidence=0.9, shape=(2,))
    assert e.mean == 2.0 and e.ci_low < 2.0 < e.ci_high
    d = e.as_dict()
    assert d["trials"] == 2 and d["shape"] == [2]

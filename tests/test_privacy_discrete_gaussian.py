"""Discrete Gaussian sampler (CKS20) and its calibration: exact pmf tests, privacy profile, hooks."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from sosproj.errors import InputTypeError, InvalidParameterError
from sosproj.privacy.accountant import PrivacyAccountant, zcdp_epsilon_cks20
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.privacy.discrete_gaussian import (
    _bern_exp_neg,
    discrete_gaussian_delta,
    discrete_gaussian_logpmf,
    discrete_gaussian_sigma,
    rational_sigma2,
    sample_discrete_gaussian,
)
from sosproj.testing import noise_disabled


def _chisq_pvalue(samples: np.ndarray, sigma2: float) -> float:
    """Pearson chi-square of integer samples against the exact pmf, bins with expected >= 5."""
    n = samples.size
    r = int(12 * math.sqrt(float(sigma2)) + 12)
    xs = np.arange(-r, r + 1)
    probs = np.exp(discrete_gaussian_logpmf(xs, sigma2))
    counts = np.bincount(np.clip(samples, -r, r) + r, minlength=2 * r + 1).astype(float)
    expected = probs * n
    keep = expected >= 5
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(expected[keep], n - expected[keep].sum())
    if exp[-1] < 5:  # fold a tiny remainder into the largest bin
        obs[np.argmax(exp[:-1])] += obs[-1]
        exp[np.argmax(exp[:-1])] += exp[-1]
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp).pvalue)


@pytest.mark.parametrize("sigma2", [0.25, Fraction(1, 3), 2.5, 30.7, 1000])
def test_pmf_chi_square_fixed_seed(sigma2: float) -> None:
    x = sample_discrete_gaussian(200_000, sigma2, rng=20240601)
    assert x.dtype == np.int64
    assert _chisq_pvalue(x, float(sigma2)) > 1e-3


def test_chi_square_has_power() -> None:
    """The same test rejects a 5% variance error, so it can fail."""
    x = sample_discrete_gaussian(200_000, 2.5, rng=7)
    assert _chisq_pvalue(x, 2.5) > 1e-3
    assert _chisq_pvalue(x, 2.5 * 1.05) < 1e-6


def test_exact_probabilities_of_bernoulli_exp() -> None:
    """Bernoulli(exp(-gamma)) for rational gamma, int64 and Python-int paths, vs exp(-gamma)."""
    gen = np.random.default_rng(3)
    for num, den in [(1, 3), (7, 2), (5, 5), (0, 1)]:
        for dtype, n in ((np.int64, 200_000), (object, 40_000)):
            r = _bern_exp_neg(np.full(n, num, dtype=dtype), den, gen)
            p = math.exp(-num / den)
            assert abs(r.mean() - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-12


def test_large_sigma_python_int_path() -> None:
    """sigma^2 = 10^12 forces exact Python-int arithmetic; moments still right."""
    x = sample_discrete_gaussian(20_000, 10 ** 12, rng=5)
    assert abs(x.mean()) < 5 * 1e6 / math.sqrt(x.size)
    assert 0.95 < x.var() / 1e12 < 1.05


def test_moments_and_variance_below_sigma2() -> None:
    """CKS20 Cor. 9: Var <= sigma^2, and it tends to sigma^2 for large sigma."""
    x = sample_discrete_gaussian((500, 400), 0.5, rng=11)
    assert x.shape == (500, 400)
    exact_var = float(np.sum(np.arange(-20, 21) ** 2 * np.exp(discrete_gaussian_logpmf(np.arange(-20, 21), 0.5))))
    assert exact_var < 0.5
    assert x.var() == pytest.approx(exact_var, rel=0.02)


def test_determinism_and_fresh_entropy() -> None:
    a = sample_discrete_gaussian(1000, 4.0, rng=42)
    b = sample_discrete_gaussian(1000, 4.0, rng=42)
    assert np.array_equal(a, b)
    c = sample_discrete_gaussian(1000, 4.0, rng=None)
    d = sample_discrete_gaussian(1000, 4.0, rng=None)
    assert not np.array_equal(c, d)


def test_noise_disabled_hook_returns_zeros() -> None:
    with noise_disabled():
        z = sample_discrete_gaussian((3, 4), 9.0, rng=0)
    assert z.shape == (3, 4) and z.dtype == np.int64 and not z.any()
    assert sample_discrete_gaussian((3, 4), 9.0, rng=0).any()


def test_rational_rounding_is_upwards() -> None:
    for v in [0.1, 1 / 3, 2.0 ** -30, 123.456, 7.0e9 + 0.3]:
        r = rational_sigma2(v)
        assert r >= Fraction(v)
        if v < 1e3:
            assert r - Fraction(v) <= Fraction(1, 2 ** 20)  # grid 2^-20 (coarser only for huge sigma)
        else:
            assert float(r) == pytest.approx(v, rel=1e-6)
    assert rational_sigma2(3) == Fraction(3)


def test_bad_inputs() -> None:
    with pytest.raises(InvalidParameterError):
        sample_discrete_gaussian(3, 0.0)
    with pytest.raises(InvalidParameterError):
        sample_discrete_gaussian(3, float("nan"))
    with pytest.raises(InputTypeError):
        sample_discrete_gaussian(3, "1.0")
    with pytest.raises(InvalidParameterError):
        sample_discrete_gaussian(-1, 1.0)
    with pytest.raises(InvalidParameterError):
        discrete_gaussian_sigma(1.0, 1e-6, 1.5, method="exact")
    assert sample_discrete_gaussian((0, 3), 1.0, rng=0).shape == (0, 3)


# ----------------------------------------------------------------- calibration


def _mp_delta(sigma2: float, eps: float, D: int) -> mp.mpf:
    """Independent evaluation of CKS20 Thm 7: P[X > c] - e^eps P[X > c + D], 50 digits."""
    with mp.workdps(50):
        s2 = mp.mpf(sigma2)
        r = int(60 * math.sqrt(sigma2) + 60)
        w = [mp.e ** (-mp.mpf(y) ** 2 / (2 * s2)) for y in range(-r, r + 1)]
        Z = mp.fsum(w)
        c = mp.mpf(eps) * s2 / D - mp.mpf(D) / 2
        tail1 = mp.fsum(wi for y, wi in zip(range(-r, r + 1), w) if y > c) / Z
        tail2 = mp.fsum(wi for y, wi in zip(range(-r, r + 1), w) if y > c + D) / Z
        return tail1 - mp.e ** mp.mpf(eps) * tail2


@pytest.mark.parametrize("sigma2,eps,D", [(4.0, 0.5, 1), (25.0, 1.0, 1), (9.0, 2.0, 2), (100.0, 0.3, 3)])
def test_exact_profile_matches_high_precision(sigma2: float, eps: float, D: int) -> None:
    ours = discrete_gaussian_delta(sigma2, eps, D)
    assert ours == pytest.approx(float(_mp_delta(sigma2, eps, D)), rel=1e-8)


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)])
def test_calibrations(eps: float, delta: float) -> None:
    s_exact = discrete_gaussian_sigma(eps, delta, 1, method="exact")
    s_zcdp = discrete_gaussian_sigma(eps, delta, 1)
    assert discrete_gaussian_delta(s_exact ** 2, eps, 1) <= delta
    assert discrete_gaussian_delta((s_exact * 0.999) ** 2, eps, 1) > delta  # smallest
    assert s_exact <= s_zcdp
    # zCDP calibration: rho = 1/(2 s^2) converts (CKS20) to exactly eps
    assert zcdp_epsilon_cks20(1 / (2 * s_zcdp ** 2), delta) == pytest.approx(eps, rel=1e-9)
    acc = PrivacyAccountant(eps, delta)
    acc.charge_gaussian(sigma=s_zcdp * (1 + 1e-9), sensitivity=1.0, discrete=True)
    # the discrete Gaussian is within a few percent of the continuous analytic Gaussian here
    assert s_exact == pytest.approx(gaussian_sigma(eps, delta), rel=0.05)
    assert discrete_gaussian_sigma(eps, delta, 3.0) == pytest.approx(3 * s_zcdp, rel=1e-9)

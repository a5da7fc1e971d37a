"""Log-log rate fits and their bootstrap intervals."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.certificates import fit_rate
from sosproj.errors import InvalidInputError, InvalidParameterError


def test_exact_power_law_is_recovered():
    n = np.array([4, 8, 16, 32, 64])
    fit = fit_rate(n, 0.7 * n ** 1.25)
    assert fit.exponent == pytest.approx(1.25, abs=1e-12)
    assert fit.constant == pytest.approx(0.7, rel=1e-12)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.method == "residual"
    assert fit.exponent_ci[0] == pytest.approx(1.25) and fit.exponent_ci[1] == pytest.approx(1.25)
    assert fit.predict(128.0) == pytest.approx(0.7 * 128 ** 1.25)


def test_log_factor_is_divided_out():
    n = np.array([5.0, 10, 20, 40])
    y = 2.0 * (n ** 3 * 3 * np.log(n)) ** 0.25
    fit = fit_rate(n, y, log_factor=lambda x: (3 * np.log(x)) ** 0.25)
    assert fit.exponent == pytest.approx(0.75, abs=1e-12)
    assert fit.constant == pytest.approx(2.0, rel=1e-12)


def test_trial_bootstrap_covers_the_true_exponent_and_separates_a_wrong_one():
    rng = np.random.default_rng(1)
    n = np.array([8, 16, 32, 64])
    samples = [1.5 * m ** 0.5 * (1 + 0.1 * rng.standard_normal(40)) for m in n]
    fit = fit_rate(n, samples=samples, n_boot=800, rng=2)
    assert fit.method == "trials" and fit.n_boot == 800
    assert fit.consistent_with(0.5)
    assert not fit.consistent_with(0.75)
    assert fit.exponent_ci[0] < fit.exponent < fit.exponent_ci[1]
    assert fit.constant_ci[0] < 1.5 < fit.constant_ci[1]


def test_two_points_with_samples_still_get_an_interval():
    fit = fit_rate([10, 20], samples=[[1.0, 1.2, 0.9], [2.0, 2.1, 1.9]], n_boot=200)
    assert np.isfinite(fit.exponent_ci[0]) and fit.exponent_ci[0] <= fit.exponent <= fit.exponent_ci[1]
    no_ci = fit_rate([10, 20], [1.0, 2.0])
    assert np.isnan(no_ci.exponent_ci[0]) and no_ci.method == "none"


def test_rate_fit_errors():
    with pytest.raises(InvalidInputError):
        fit_rate([3, 3], [1.0, 2.0])
    with pytest.raises(InvalidInputError):
        fit_rate([1, 2, 3], [1.0, -2.0, 3.0])
    with pytest.raises(InvalidInputError):
        fit_rate([0, 2], [1.0, 2.0])
    with pytest.raises(InvalidParameterError):
        fit_rate([1, 2], [1.0, 2.0], samples=[[1, 1], [2, 2]])
    with pytest.raises(InvalidParameterError):
        fit_rate([1, 2])
    with pytest.raises(InvalidInputError):
        fit_rate([1, 2], samples=[[1.0], [2.0, 2.0]])
    with pytest.raises(InvalidParameterError):
        fit_rate([1, 2, 4], [1.0, 2.0, 4.0], log_factor=lambda x: -x)
    d = fit_rate([1, 2, 4], [1.0, 2.0, 4.0]).as_dict()
    assert d["exponent"] == pytest.approx(1.0) and len(d["x"]) == 3

"""Noise calibration: analytic Gaussian against independent references."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from sosproj import gaussian_sigma
from sosproj.errors import InputTypeError, InvalidParameterError, SosprojError
from sosproj.privacy.calibration import gaussian_delta

EPSILONS = [0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0, 2.0, 5.0, 10.0, 20.0]
DELTAS = [1e-3, 1e-6, 1e-10]


def _mp_profile(sigma: float, eps: float) -> mp.mpf:
    s, e = mp.mpf(sigma), mp.mpf(eps)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.e**e * mp.ncdf(-1 / (2 * s) - e * s)


def _mp_sigma(eps: float, delta: float) -> float:
    """Independent high-precision root of the Balle-Wang profile (50 digits, bisection)."""
    with mp.workdps(50):
        lo, hi = mp.mpf("1e-4"), mp.mpf(1e4)
        target = mp.mpf(delta)
        for _ in range(200):
            mid = mp.sqrt(lo * hi)
            if _mp_profile(mid, eps) > target:
                lo = mid
            else:
                hi = mid
        return float(hi)


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("delta", DELTAS)
def test_analytic_matches_high_precision_root(eps: float, delta: float) -> None:
    ours = gaussian_sigma(eps, delta)
    ref = _mp_sigma(eps, delta)
    assert ours == pytest.approx(ref, rel=1e-9)
    # the returned sigma really satisfies the profile inequality (never under-noised)
    with mp.workdps(50):
        assert _mp_profile(ours, eps) <= mp.mpf(delta) * (1 + mp.mpf("1e-12"))


@pytest.mark.parametrize("eps", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-6])
def test_analytic_matches_autodp_reference_implementation(eps: float, delta: float) -> None:
    """autodp's calibrator is Balle's published reference code (plain floating point, so only
    compared where its direct evaluation of the profile has no cancellation: delta >= 1e-6)."""
    pytest.importorskip("autodp")
    import autodp.rdp_acct  # noqa: F401  (autodp needs this import order)
    from autodp.privacy_calibrator import ana_gaussian_mech

    ref = ana_gaussian_mech(eps, delta, tol=1e-14)["sigma"]
    assert gaussian_sigma(eps, delta) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("delta", DELTAS)
def test_analytic_never_larger_than_paper_or_classical(eps: float, delta: float) -> None:
    a = gaussian_sigma(eps, delta)
    if eps <= 1:
        assert a <= gaussian_sigma(eps, delta, calibration="paper")
    if eps < 1:
        assert a <= gaussian_sigma(eps, delta, calibration="classical")


def test_closed_forms_and_linearity_in_sensitivity() -> None:
    assert gaussian_sigma(0.5, 1e-5, 3.0, "paper") == pytest.approx(3 * math.sqrt(2 * math.log(2e5)) / 0.5)
    assert gaussian_sigma(0.5, 1e-5, 3.0, "classical") == pytest.approx(
        3 * math.sqrt(2 * math.log(1.25e5)) / 0.5)
    assert gaussian_sigma(1.0, 1e-6, 7.0) == pytest.approx(7 * gaussian_sigma(1.0, 1e-6), rel=1e-12)
    assert gaussian_delta(gaussian_sigma(1.0, 1e-6), 1.0) <= 1e-6 * (1 + 1e-12)


def test_classical_refused_for_large_epsilon() -> None:
    with pytest.raises(InvalidParameterError, match="epsilon < 1"):
        gaussian_sigma(1.0, 1e-6, calibration="classical")


@pytest.mark.parametrize("eps, delta", [(10.0, 1e-3), (20.0, 1e-6)])
def test_paper_calibration_refused_above_one_where_it_underestimates(eps: float, delta: float) -> None:
    """The paper's lemma assumes epsilon <= 1; beyond it its sigma is below the exact minimum."""
    naive = math.sqrt(2 * math.log(2 / delta)) / eps
    assert naive < gaussian_sigma(eps, delta)  # would under-noise
    with pytest.raises(InvalidParameterError, match="epsilon <= 1"):
        gaussian_sigma(eps, delta, calibration="paper")


@pytest.mark.parametrize("kwargs, err, word", [
    ({"epsilon": 0.0, "delta": 1e-6}, InvalidParameterError, "epsilon"),
    ({"epsilon": -1.0, "delta": 1e-6}, InvalidParameterError, "epsilon"),
    ({"epsilon": float("nan"), "delta": 1e-6}, InvalidParameterError, "epsilon"),
    ({"epsilon": float("inf"), "delta": 1e-6}, InvalidParameterError, "epsilon"),
    ({"epsilon": 1.0, "delta": 0.0}, InvalidParameterError, "delta"),
    ({"epsilon": 1.0, "delta": 1.0}, InvalidParameterError, "delta"),
    ({"epsilon": 1.0, "delta": 1e-6, "sensitivity": 0.0}, InvalidParameterError, "sensitivity"),
    ({"epsilon": 1.0, "delta": 1e-6, "sensitivity": -2.0}, InvalidParameterError, "sensitivity"),
    ({"epsilon": "1", "delta": 1e-6}, InputTypeError, "epsilon"),
    ({"epsilon": 1.0, "delta": 1e-6, "calibration": "magic"}, InvalidParameterError, "calibration"),
])
def test_bad_parameters_raise_named_errors(kwargs: dict, err: type, word: str) -> None:
    with pytest.raises(err, match=word) as info:
        gaussian_sigma(**kwargs)
    assert isinstance(info.value, SosprojError)


def test_sigma_monotone_in_epsilon_and_delta() -> None:
    eps = np.geomspace(0.01, 20, 30)
    s = [gaussian_sigma(e, 1e-6) for e in eps]
    assert np.all(np.diff(s) < 0)
    d = np.geomspace(1e-12, 0.5, 30)
    s = [gaussian_sigma(1.0, x) for x in d]
    assert np.all(np.diff(s) < 0)

"""perturb_and_project (Algorithms 1-2), the noise sampler, rng handling and the error family."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import sosproj as sp
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError, SosprojError
from sosproj.privacy.noise import gaussian_noise
from sosproj.rng import as_generator
from sosproj.sets import Box, Intersection, PSDCone, PSDFrobeniusBall, Spectraplex
from sosproj.testing import noise_disabled


def test_noise_variance_matches_sigma() -> None:
    """Chi-square test of the sample variance (fixed seed)."""
    sigma = 3.7
    x = gaussian_noise((20000,), sigma, rng=7)
    n = x.size
    stat = (n - 1) * x.var(ddof=1) / sigma**2
    p = 2 * min(stats.chi2.cdf(stat, n - 1), stats.chi2.sf(stat, n - 1))
    assert p > 1e-3
    assert abs(x.mean()) < 5 * sigma / np.sqrt(n)
    assert stats.kstest(x / sigma, "norm").pvalue > 1e-3


def test_perturb_and_project_noise_scale_and_projection() -> None:
    A = np.zeros((3, 3))
    S = Box(-1e9, 1e9)  # projection is the identity: the release is A + W
    rel = sp.perturb_and_project(A, S, epsilon=0.5, delta=1e-5, sensitivity=2.0, rng=1)
    assert rel.sigma == pytest.approx(sp.gaussian_sigma(0.5, 1e-5, 2.0))
    draws = np.concatenate([
        sp.perturb_and_project(A, S, epsilon=0.5, delta=1e-5, sensitivity=2.0, rng=s).value.ravel()
        for s in range(400)])
    assert draws.std() == pytest.approx(rel.sigma, rel=0.05)


def test_same_seed_same_output_and_fresh_entropy_differs() -> None:
    A = np.eye(4) * 0.5
    S = Spectraplex(1.0)
    r1 = sp.perturb_and_project(A, S, epsilon=1, delta=1e-6, sensitivity=1, rng=42)
    r2 = sp.perturb_and_project(A, S, epsilon=1, delta=1e-6, sensitivity=1, rng=42)
    np.testing.assert_array_equal(r1.value, r2.value)
    r3 = sp.perturb_and_project(A, S, epsilon=1, delta=1e-6, sensitivity=1, rng=None)
    r4 = sp.perturb_and_project(A, S, epsilon=1, delta=1e-6, sensitivity=1, rng=None)
    assert not np.array_equal(r3.value, r4.value)
    assert S.contains(r1.value, tol=1e-9)
    assert r1.info["projection"]["exact"]


def test_algorithm_2_is_averaged_intersection_with_steps() -> None:
    n = 5
    S = Intersection([PSDFrobeniusBall(n), Box(-1, 1)], method="averaged")
    rel = sp.perturb_and_project(np.eye(n), S, epsilon=1, delta=1e-6, sensitivity=1, rng=0,
                                 project_options={"steps": 4})
    assert rel.info["projection"]["iterations"] == 4
    assert rel.info["projection"]["exact"] is False


def test_noise_disabled_hook_returns_exact_projection() -> None:
    A = np.array([[2.0, 0.0], [0.0, -1.0]])
    with noise_disabled():
        rel = sp.perturb_and_project(A, PSDCone(), epsilon=1, delta=1e-6, sensitivity=1, rng=0)
    np.testing.assert_allclose(rel.value, np.diag([2.0, 0.0]))
    assert not np.allclose(sp.perturb_and_project(A, PSDCone(), epsilon=1, delta=1e-6, sensitivity=1,
                                                  rng=0).value, np.diag([2.0, 0.0]))


@pytest.mark.parametrize("kwargs, err", [
    ({"epsilon": 0}, InvalidParameterError),
    ({"delta": 1.5}, InvalidParameterError),
    ({"sensitivity": -1}, InvalidParameterError),
    ({"calibration": "nope"}, InvalidParameterError),
])
def test_bad_privacy_parameters(kwargs: dict, err: type) -> None:
    base = {"epsilon": 1.0, "delta": 1e-6, "sensitivity": 1.0}
    base.update(kwargs)
    with pytest.raises(err):
        sp.perturb_and_project(np.zeros(2), Box(-1, 1), **base)


def test_bad_inputs_do_not_leak_values() -> None:
    secret = 123456.789
    A = np.array([secret, np.nan])
    with pytest.raises(InvalidInputError) as info:
        sp.perturb_and_project(A, Box(-1, 1), epsilon=1, delta=1e-6, sensitivity=1)
    assert "123456" not in str(info.value)
    with pytest.raises(InvalidInputError, match="square"):
        sp.perturb_and_project(np.ones((2, 3)), PSDCone(), epsilon=1, delta=1e-6, sensitivity=1)
    with pytest.raises(InputTypeError):
        sp.perturb_and_project(np.ones(2), "box", epsilon=1, delta=1e-6, sensitivity=1)
    with pytest.raises(InputTypeError):
        sp.perturb_and_project("abc", Box(-1, 1), epsilon=1, delta=1e-6, sensitivity=1)


def test_rng_spec7() -> None:
    g = np.random.default_rng(3)
    assert as_generator(g) is g
    assert as_generator(5).integers(1 << 30) == np.random.default_rng(5).integers(1 << 30)
    assert isinstance(as_generator(np.random.SeedSequence(1)), np.random.Generator)
    with pytest.raises(InputTypeError):
        as_generator(np.random.RandomState(0))
    with pytest.raises(InputTypeError):
        as_generator(True)
    with pytest.raises(InvalidParameterError):
        as_generator(-1)


def test_error_family() -> None:
    for cls in (InvalidParameterError, InvalidInputError, InputTypeError):
        assert issubclass(cls, SosprojError)
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InputTypeError, TypeError)


def test_package_exports() -> None:
    assert sp.__version__
    assert callable(sp.gaussian_sigma) and callable(sp.perturb_and_project)
    with pytest.raises(AttributeError):
        sp.not_a_thing  # noqa: B018

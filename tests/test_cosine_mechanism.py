"""release_cosine_similarities: noise, methods on one draw, validation, utility sanity."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError, ProjectionError
from sosproj.mechanisms.cosine import default_alternating_steps, normalize_rows, release_cosine_similarities
from sosproj.mechanisms.perturb_and_project import perturb_and_project
from sosproj.policy import ConvergenceWarning
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.sets import Box, Intersection, PSDFrobeniusBall
from sosproj.sets.bounded_diagonal_psd import BoundedDiagonalPSD
from sosproj.testing import noise_disabled

P = {"epsilon": 1.0, "delta": 1e-6, "sensitivity": 1.0}


def _vectors(n: int = 30, m: int = 6, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, m))


def _cos(V: np.ndarray) -> np.ndarray:
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    return U @ U.T


def test_all_methods_share_one_noise_draw() -> None:
    V = _vectors()
    g = release_cosine_similarities(V, **P, method="gaussian", rng=11)
    e = release_cosine_similarities(V, **P, method="exact", rng=11)
    d = release_cosine_similarities(V, **P, method="dykstra", rng=11, project_options={"max_iter": 20000})
    a = release_cosine_similarities(V, **P, method="alternating", rng=11)
    S = BoundedDiagonalPSD()
    np.testing.assert_allclose(e.value, S.project(g.value), atol=1e-12)
    np.testing.assert_allclose(d.value, e.value, atol=1e-6)
    t = default_alternating_steps(V.shape[0])
    alt = Intersection([PSDFrobeniusBall(30.0), Box(-1, 1)], method="averaged").project(g.value, steps=t)
    np.testing.assert_allclose(a.value, alt, atol=1e-10)
    assert a.info["steps"] == t and a.info["projection"]["exact"] is False
    assert e.info["projection"]["exact"] is True
    # a different seed gives a different draw
    g2 = release_cosine_similarities(V, **P, method="gaussian", rng=12)
    assert not np.allclose(g.value, g2.value)


def test_exact_equals_perturb_and_project() -> None:
    V = _vectors(20, 4, seed=3)
    rel = release_cosine_similarities(V, **{**P, "sensitivity": 0.5}, rng=5)
    ref = perturb_and_project(_cos(V), BoundedDiagonalPSD(), **{**P, "sensitivity": 0.5}, rng=5)
    np.testing.assert_allclose(rel.value, ref.value, atol=1e-9)
    assert rel.sigma == ref.sigma == gaussian_sigma(1.0, 1e-6, 0.5)


def test_noise_law_full_matrix_then_symmetric_part() -> None:
    """Diagonal noise variance sigma^2, off-diagonal sigma^2 / 2 (i.i.d. n x n draw, symmetric part)."""
    V = _vectors(300, 5, seed=1)
    rel = release_cosine_similarities(V, **P, method="gaussian", rng=2, calibration="paper")
    E = rel.value - _cos(V)
    s2 = rel.sigma**2
    iu = np.triu_indices(300, 1)
    assert np.allclose(E, E.T)
    assert abs(np.var(np.diag(E)) / s2 - 1.0) < 0.25
    assert abs(np.var(E[iu]) / (s2 / 2) - 1.0) < 0.05
    assert rel.sigma == pytest.approx(math.sqrt(2 * math.log(2 / 1e-6)))


def test_noise_disabled_returns_the_cosine_matrix() -> None:
    V = _vectors(15, 3, seed=4) * np.arange(1, 16)[:, None]
    A = _cos(V)
    with noise_disabled():
        for method in ("gaussian", "exact", "dykstra", "alternating"):
            rel = release_cosine_similarities(V, **P, method=method, rng=0)
            np.testing.assert_allclose(rel.value, A, atol=1e-8, err_msg=method)


def test_row_scaling_is_irrelevant() -> None:
    V = _vectors(12, 3, seed=6)
    scales = np.random.default_rng(0).uniform(1e-3, 1e3, 12)[:, None]
    a = release_cosine_similarities(V, **P, rng=9)
    b = release_cosine_similarities(V * scales, **P, rng=9)
    np.testing.assert_allclose(a.value, b.value, atol=1e-9)
    np.testing.assert_allclose(normalize_rows([[1e200, 1e200]]), [[2**-0.5, 2**-0.5]])
    np.testing.assert_allclose(normalize_rows([[1e-300, 0.0]]), [[1.0, 0.0]])


def test_exact_beats_gaussian_and_lies_in_the_set() -> None:
    V = _vectors(150, 10, seed=8)
    A = _cos(V)
    g = release_cosine_similarities(V, **P, method="gaussian", rng=1)
    e = release_cosine_similarities(V, **P, method="exact", rng=1)
    assert BoundedDiagonalPSD().contains(e.value, tol=1e-9)
    err_e, err_g = np.sum((e.value - A) ** 2), np.sum((g.value - A) ** 2)
    assert err_e < 0.2 * err_g
    # the stability bound E||P(A+W) - A||^2 <= sigma * G(S) <= sigma * n * ||sym W||_op-type bound
    assert err_e <= 2 * e.sigma * 150**1.5


def test_release_metadata_is_public_and_json() -> None:
    V = _vectors(10, 3)
    rel = release_cosine_similarities(V, **P, rng=0)
    json.dumps(rel.info)
    assert rel.mechanism == "cosine_similarities[exact]"
    assert rel.privacy["sensitivity"] == 1.0 and rel.calibration == "analytic"
    assert "dual" not in rel.info["projection"]


def test_on_fail_policies() -> None:
    V = _vectors(40, 5, seed=2)
    with pytest.raises(ProjectionError):
        release_cosine_similarities(V, **P, rng=0, project_options={"max_iter": 1})
    with pytest.warns(ConvergenceWarning):
        rel = release_cosine_similarities(V, **P, rng=0, on_fail="warn", project_options={"max_iter": 1})
    assert rel.info["projection"]["converged"] is False


@pytest.mark.parametrize("bad, err", [
    (np.array([1.0, 2.0]), InvalidInputError),                    # 1-D
    (np.array([[1.0, np.nan], [0.0, 1.0]]), InvalidInputError),    # non-finite
    (np.array([[1.0, np.inf], [0.0, 1.0]]), InvalidInputError),
    (np.array([[1.0, 2.0], [0.0, 0.0]]), InvalidInputError),       # zero row
    (np.zeros((0, 3)), InvalidInputError),                         # empty
    ("abc", InputTypeError),
])
def test_bad_vectors(bad: object, err: type) -> None:
    with pytest.raises(err) as exc:
        release_cosine_similarities(bad, **P, rng=0)
    assert "nan" not in str(exc.value).lower() or "NaN" in str(exc.value)


def test_zero_row_message_has_no_data() -> None:
    V = np.array([[0.123456, 0.654321], [0.0, 0.0]])
    with pytest.raises(InvalidInputError) as exc:
        release_cosine_similarities(V, **P, rng=0)
    msg = str(exc.value)
    assert "0.123" not in msg and "row of zeros" in msg


@pytest.mark.parametrize("kw", [
    {"epsilon": 0.0}, {"epsilon": -1.0}, {"delta": 0.0}, {"delta": 1.0}, {"sensitivity": 0.0},
    {"sensitivity": float("nan")}, {"method": "svd"}, {"calibration": "magic"}, {"steps": 3},
    {"method": "alternating", "steps": 0}, {"on_fail": "ignore"},
    {"method": "gaussian", "project_options": {"tol": 1e-3}},
])
def test_bad_parameters(kw: dict) -> None:
    args = {"epsilon": 1.0, "delta": 1e-6, "sensitivity": 1.0, "rng": 0, **kw}
    with pytest.raises(InvalidParameterError):
        release_cosine_similarities(_vectors(5, 2), **args)


def test_sensitivity_is_required_and_the_error_explains_how_to_choose_it(monkeypatch) -> None:
    import sosproj.mechanisms.cosine as cosine

    def no_noise(*a, **k):
        raise AssertionError("no noise may be drawn before the sensitivity is known")

    monkeypatch.setattr(cosine, "gaussian_noise", no_noise)
    with pytest.raises(InvalidParameterError) as info:
        release_cosine_similarities(_vectors(5, 2), epsilon=1.0, delta=1e-6, rng=0)
    msg = str(info.value)
    assert "sensitivity is required" in msg and "2*sqrt(2*(n-1)) = 5.657" in msg and "docs/cosine.md" in msg


def test_alternating_steps_and_output() -> None:
    assert default_alternating_steps(1) == 1
    assert default_alternating_steps(100) == math.ceil(2 * math.log(100))
    V = _vectors(25, 4)
    rel = release_cosine_similarities(V, **P, method="alternating", steps=3, rng=0)
    assert rel.info["steps"] == 3 and np.allclose(rel.value, rel.value.T)
    # the averaged iterates approach S_1 cap S_2 = {X PSD, X_ii <= 1}: more steps, smaller violation
    S = BoundedDiagonalPSD()
    v = [S.violation(release_cosine_similarities(V, **P, method="alternating", steps=t, rng=0).value)
         for t in (1, 10, 60)]
    assert v[2] < v[1] < v[0]

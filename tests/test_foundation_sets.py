"""Closed-form sets and intersections: projection properties, supports, references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sosproj.errors import InvalidInputError, InvalidParameterError, ProjectionError
from sosproj.sets import (
    Box,
    ConvergenceWarning,
    FrobeniusBall,
    Intersection,
    PSDCone,
    PSDFrobeniusBall,
    Spectraplex,
    SymmetricMatrices,
)
from sosproj.sets.reference import cvxpy_project, cvxpy_support

N = 4
floats = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
matrices = arrays(np.float64, (N, N), elements=floats)

SETS = {
    "psd": PSDCone(),
    "spectraplex": Spectraplex(1.5),
    "spectraplex_eq": Spectraplex(2.0, equality=True),
    "psd_fro": PSDFrobeniusBall(2.0),
    "fro": FrobeniusBall(1.0),
    "fro_center": FrobeniusBall(0.5, center=np.eye(N)),
    "box": Box(-1, 1),
    "box_array": Box(np.zeros((N, N)), np.arange(1, N * N + 1, dtype=float).reshape(N, N) / 4),
    "sym": SymmetricMatrices(),
}


def _psd(rng, trace):
    A = rng.normal(size=(N, N))
    X = A @ A.T
    return trace * X / np.trace(X)


def _member(name, rng):
    """A point of SETS[name] built from its definition (never by the projection under test)."""
    u = rng.uniform(0.2, 1.0)
    if name == "psd":
        return _psd(rng, 10 * u)
    if name == "spectraplex":
        return _psd(rng, 1.5 * u)
    if name == "spectraplex_eq":
        return _psd(rng, 2.0)
    if name == "psd_fro":
        X = _psd(rng, 1.0)
        return 2.0 * u * X / np.linalg.norm(X)
    if name in ("fro", "fro_center"):
        E = rng.normal(size=(N, N))
        r = 1.0 if name == "fro" else 0.5
        return (0 if name == "fro" else np.eye(N)) + r * u * E / np.linalg.norm(E)
    if name == "box":
        return rng.uniform(-1, 1, size=(N, N))
    if name == "box_array":
        return rng.uniform(0, 1, size=(N, N)) * np.arange(1, N * N + 1, dtype=float).reshape(N, N) / 4
    if name == "sym":
        A = rng.normal(scale=3, size=(N, N))
        return A + A.T
    raise AssertionError(name)


def _sample_in_set(name, rng, k=3):
    """Independent points of the set: built from its definition, checked with contains()."""
    pts = [_member(name, rng) for _ in range(k)]
    assert all(SETS[name].contains(X, tol=1e-9) for X in pts)
    return pts


@pytest.mark.parametrize("name", list(SETS))
@given(Y=matrices, Z=matrices)
def test_projection_properties(name: str, Y: np.ndarray, Z: np.ndarray) -> None:
    S = SETS[name]
    P = S.project(Y)
    assert S.contains(P, tol=1e-8)
    np.testing.assert_allclose(S.project(P), P, atol=1e-9)  # idempotent
    Q = S.project(Z)
    assert np.linalg.norm(P - Q) <= np.linalg.norm(Y - Z) + 1e-9  # non-expansive
    rng = np.random.default_rng(0)
    for X in _sample_in_set(name, rng):  # variational inequality against independent points of S
        assert np.sum((Y - P) * (X - P)) <= 1e-7 * max(1.0, np.linalg.norm(Y) ** 2)


@pytest.mark.parametrize("name", ["spectraplex", "spectraplex_eq", "psd_fro", "fro", "fro_center", "box",
                                  "box_array"])
def test_support_matches_cvxpy(name: str, rng: np.random.Generator) -> None:
    S = SETS[name]
    for _ in range(3):
        W = rng.normal(size=(N, N))
        ours = S.support(W)
        ref = cvxpy_support(S, W)
        assert ours.value == pytest.approx(ref.value, abs=1e-6, rel=1e-6)
        assert np.sum(W * ours.maximizer) == pytest.approx(ours.value, abs=1e-9)
        assert S.contains(ours.maximizer, tol=1e-8)


@pytest.mark.parametrize("name", list(SETS))
def test_projection_matches_cvxpy(name: str, rng: np.random.Generator) -> None:
    S = SETS[name]
    for _ in range(2):
        Y = rng.normal(scale=2, size=(N, N))
        np.testing.assert_allclose(S.project(Y), cvxpy_project(S, Y), atol=2e-6)


def test_unbounded_supports() -> None:
    assert PSDCone().support(-np.eye(3)).value == 0.0
    assert PSDCone().support(np.eye(3)).value == np.inf
    assert SymmetricMatrices().support(np.array([[0, 1.0], [-1.0, 0]])).value == 0.0
    assert SymmetricMatrices().support(np.eye(2)).value == np.inf
    assert Box(0, np.inf).support(np.array([1.0])).value == np.inf


def test_spectraplex_support_closed_form(rng: np.random.Generator) -> None:
    W = rng.normal(size=(6, 6))
    lmax = np.linalg.eigvalsh((W + W.T) / 2)[-1]
    assert Spectraplex(1.0).support(W).value == pytest.approx(max(lmax, 0.0))


# ------------------------------------------------------------------ intersections


def _intersection_cases(rng):
    for _ in range(4):
        n = int(rng.integers(3, 7))
        Y = rng.normal(scale=2.0, size=(n, n))
        yield [PSDCone(), Box(-1, 1)], Y
        yield [PSDFrobeniusBall(float(n) / 2), Box(-0.5, 0.8)], Y
        yield [Spectraplex(2.0), FrobeniusBall(1.2)], Y


def test_dykstra_equals_cvxpy_projection(rng: np.random.Generator) -> None:
    for sets, Y in _intersection_cases(rng):
        S = Intersection(sets, method="dykstra", tol=1e-11, max_iter=100_000)
        X, info = S.project(Y, return_info=True)
        assert info.exact and info.converged
        np.testing.assert_allclose(X, cvxpy_project(S, Y), atol=1e-6)


def test_averaged_is_feasible_but_not_the_projection() -> None:
    """A planar instance where averaged projections end measurably far from the projection."""
    # S1 = half-plane {x2 <= 0}; S2 = a huge disc ~ the half-plane {x1 + x2 <= 0}. The
    # intersection is a wedge with apex ~0 and (3, 4) lies in the apex's normal cone, so the
    # projection is ~(0, 0), while alternating/averaged projections stop on an edge (~(1.5, -1.5)).
    R = 1e3
    S1 = Box(np.array([-np.inf, -np.inf]), np.array([np.inf, 0.0]))
    S2 = FrobeniusBall(R, center=-R * np.array([1.0, 1.0]) / np.sqrt(2))
    Y = np.array([3.0, 4.0])
    exact = Intersection([S1, S2], method="dykstra", tol=1e-12, max_iter=100_000).project(Y)
    avg, info = Intersection([S1, S2], method="averaged", tol=1e-12, max_iter=100_000).project(
        Y, return_info=True)
    alt = Intersection([S1, S2], method="alternating", tol=1e-12, max_iter=100_000).project(Y)
    ref = cvxpy_project(Intersection([S1, S2]), Y)
    np.testing.assert_allclose(exact, ref, atol=1e-6)
    np.testing.assert_allclose(exact, [0.0, 0.0], atol=1e-2)
    assert not info.exact
    assert S1.contains(avg, 1e-6) and S2.contains(avg, 1e-6)
    assert np.linalg.norm(avg - exact) > 0.5
    assert np.linalg.norm(alt - exact) > 1.0


def test_fixed_steps_algorithm_2() -> None:
    S = Intersection([PSDFrobeniusBall(3.0), Box(-1, 1)], method="averaged")
    X, info = S.project(np.full((3, 3), 5.0), return_info=True, steps=3)
    assert info.iterations == 3 and info.extra["fixed_steps"] and not info.exact


def test_iteration_cap_reported_never_silent() -> None:
    S = Intersection([PSDCone(), Box(-1, 1)], method="dykstra", tol=1e-14, max_iter=2)
    Y = np.array([[2.0, 3.0], [3.0, -1.0]])
    with pytest.raises(ProjectionError) as err:
        S.project(Y)
    assert err.value.info["converged"] is False and "value" in err.value.info
    with pytest.warns(ConvergenceWarning):
        _, info = S.project(Y, on_fail="warn", return_info=True)
    assert not info.converged and not info.exact


def test_bad_inputs() -> None:
    with pytest.raises(InvalidInputError, match="NaN"):
        PSDCone().project(np.array([[np.nan, 0], [0, 1.0]]))
    with pytest.raises(InvalidInputError, match="square"):
        PSDCone().project(np.ones((2, 3)))
    with pytest.raises(InvalidInputError, match="shape"):
        PSDCone(n=3).project(np.eye(2))
    with pytest.raises(InvalidParameterError):
        Box(1, 0)
    with pytest.raises(InvalidParameterError):
        FrobeniusBall(-1.0)
    with pytest.raises(InvalidParameterError):
        Intersection([])
    with pytest.raises(InvalidParameterError, match="method"):
        Intersection([PSDCone()], method="magic")

"""Projection onto {X PSD, X_ii <= b}: Newton and Dykstra against cvxpy, KKT and properties."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sosproj.errors import InvalidInputError, InvalidParameterError, ProjectionError
from sosproj.policy import ConvergenceWarning
from sosproj.sets.bounded_diagonal_psd import BoundedDiagonalPSD
from sosproj.sets.newton_bounded_diagonal import bounded_diagonal_dykstra, bounded_diagonal_newton


def _sym_noise(rng: np.random.Generator, n: int, sigma: float) -> np.ndarray:
    W = rng.standard_normal((n, n)) * sigma
    return (W + W.T) / 2


def _gram(rng: np.random.Generator, n: int, r: int, norms: np.ndarray | None = None) -> np.ndarray:
    V = rng.standard_normal((n, r))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    if norms is not None:
        V *= norms[:, None]
    return V @ V.T


def _cvxpy_reference(Y: np.ndarray, bound: float = 1.0) -> np.ndarray:
    import cvxpy as cp

    n = Y.shape[0]
    X = cp.Variable((n, n), symmetric=True)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(X - Y)), [X >> 0, cp.diag(X) <= bound])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prob.solve(solver="SCS", eps_abs=1e-12, eps_rel=1e-12, max_iters=500_000)
    assert prob.status == "optimal"
    return (X.value + X.value.T) / 2


def _instances() -> list[tuple[str, np.ndarray, float]]:
    rng = np.random.default_rng(20240611)
    out: list[tuple[str, np.ndarray, float]] = []
    # no active bound: PSD part well inside the bounds
    for n in (4, 12, 30):
        out.append(("no-active", 0.5 * _gram(rng, n, 3) + _sym_noise(rng, n, 0.02), 1.0))
    # all bounds active
    for n in (5, 20, 40):
        out.append(("all-active", 3.0 * np.eye(n) + _sym_noise(rng, n, 0.3), 1.0))
    # already feasible (inside the set)
    for n in (6, 16):
        out.append(("feasible", _gram(rng, n, 4, np.sqrt(rng.uniform(0.2, 1.0, n))), 1.0))
    # zero matrix
    out.append(("zero", np.zeros((7, 7)), 1.0))
    # rank one, outside the set
    for n in (8, 30):
        u = rng.standard_normal(n)
        out.append(("rank-1", 3.0 * np.outer(u, u) / (u @ u) * n, 1.0))
    # very large noise
    out.append(("huge-noise", _gram(rng, 12, 3) + _sym_noise(rng, 12, 1e2), 1.0))
    out.append(("extreme-noise", _gram(rng, 10, 3) + _sym_noise(rng, 10, 1e3), 1.0))
    # noisy Gram matrices of unit vectors (the mechanism's regime), various sizes/noise
    for n, s in ((15, 0.1), (25, 1.0), (40, 5.0), (60, 2.0), (60, 0.05)):
        out.append(("noisy-gram", _gram(rng, n, 5) + _sym_noise(rng, n, s), 1.0))
    # mixed row norms: part of the bounds active
    for n in (20, 45):
        out.append(("mixed", _gram(rng, n, 5, np.sqrt(rng.uniform(0.3, 1.0, n))) + _sym_noise(rng, n, 0.05),
                    1.0))
    # other bounds
    out.append(("bound-2.5", 4.0 * _gram(rng, 18, 3) + _sym_noise(rng, 18, 0.5), 2.5))
    out.append(("bound-0", _sym_noise(rng, 9, 1.0), 0.0))
    return out


INSTANCES = _instances()


@functools.cache
def _reference(idx: int) -> np.ndarray:
    _, Y, b = INSTANCES[idx]
    return _cvxpy_reference(Y, b)


def test_instance_count() -> None:
    assert len(INSTANCES) >= 20
    assert {k for k, _, _ in INSTANCES} >= {"no-active", "all-active", "feasible", "zero", "rank-1",
                                            "huge-noise", "extreme-noise"}


@pytest.mark.parametrize("idx", range(len(INSTANCES)), ids=[f"{k}-{i}" for i, (k, _, _) in
                                                            enumerate(INSTANCES)])
def test_newton_and_dykstra_match_cvxpy(idx: int) -> None:
    kind, Y, b = INSTANCES[idx]
    ref = _reference(idx)
    scale = max(1.0, float(np.max(np.abs(Y))))
    Xn, info_n = bounded_diagonal_newton(Y, b)
    assert info_n.converged and info_n.exact
    # very large noise gives low-rank, ill-conditioned solutions: more Newton steps
    assert info_n.extra["eigendecompositions"] <= (40 if kind.endswith("noise") else 15)
    np.testing.assert_allclose(Xn, ref, atol=1e-6 * scale, rtol=0)
    if kind == "extreme-noise":
        return  # Dykstra needs > 1e4 eigendecompositions here (linear rate); see docs/cosine.md
    Xd, info_d = bounded_diagonal_dykstra(Y, b, tol=1e-6 if kind == "huge-noise" else 1e-9, max_iter=20000)
    assert info_d.converged
    np.testing.assert_allclose(Xd, ref, atol=1e-6 * scale, rtol=0)
    if kind == "feasible":
        np.testing.assert_allclose(Xn, Y, atol=1e-10)
    if kind == "zero":
        assert np.all(Xn == 0)


@pytest.mark.parametrize("idx", range(0, len(INSTANCES), 2))
def test_kkt_conditions_hold(idx: int) -> None:
    """Independent check of optimality: X - Y + Diag(z) = S, S PSD, <S, X> = 0, z >= 0, z_i (b - X_ii) = 0."""
    _, Y, b = INSTANCES[idx]
    X, info = bounded_diagonal_newton(Y, b)
    z = info.extra["dual"]
    scale = max(1.0, float(np.linalg.norm(Y)))
    assert np.all(z >= 0)
    assert np.all(np.diag(X) <= b)
    assert np.allclose(X, X.T, atol=0)
    assert np.linalg.eigvalsh(X)[0] >= -1e-12 * scale
    S = X - Y + np.diag(z)
    assert np.linalg.eigvalsh(S)[0] >= -1e-7 * scale
    assert abs(np.vdot(S, X)) <= 1e-6 * scale
    assert np.max(z * (b - np.diag(X))) <= 1e-6 * scale
    assert info.residual <= 1e-9
    assert info.extra["duality_gap"] >= 0
    # certified distance bound actually bounds the distance to the reference
    assert np.linalg.norm(X - _reference(idx)) <= info.extra["distance_bound"] + 1e-6 * scale


def test_fast_path_costs_one_eigendecomposition() -> None:
    rng = np.random.default_rng(1)
    Y = 0.5 * _gram(rng, 30, 4) + _sym_noise(rng, 30, 0.01)
    X, info = BoundedDiagonalPSD().project(Y, return_info=True)
    assert info.extra["eigendecompositions"] == 1 and info.iterations == 0
    w, Q = np.linalg.eigh(Y)
    np.testing.assert_allclose(X, (Q * np.maximum(w, 0)) @ Q.T, atol=1e-12)


def test_warm_start_reuses_dual() -> None:
    rng = np.random.default_rng(2)
    Y = _gram(rng, 40, 5) + _sym_noise(rng, 40, 1.0)
    X1, info1 = bounded_diagonal_newton(Y)
    assert info1.iterations >= 1
    X2, info2 = bounded_diagonal_newton(Y, z0=info1.extra["dual"])
    assert info2.iterations == 0 and info2.extra["eigendecompositions"] == 1
    np.testing.assert_allclose(X1, X2, atol=1e-12)


def test_iteration_cap_is_reported() -> None:
    rng = np.random.default_rng(3)
    Y = _gram(rng, 40, 5) + _sym_noise(rng, 40, 3.0)
    with pytest.raises(ProjectionError) as exc:
        bounded_diagonal_newton(Y, max_iter=1)
    assert exc.value.info["converged"] is False and "value" in exc.value.info
    with pytest.warns(ConvergenceWarning):
        X, info = bounded_diagonal_newton(Y, max_iter=1, on_fail="warn")
    assert not info.converged and not info.exact
    # even unconverged, the point is feasible
    assert np.all(np.diag(X) <= 1.0) and np.linalg.eigvalsh(X)[0] >= -1e-10
    X, info = bounded_diagonal_dykstra(Y, max_iter=3, on_fail="return")
    assert not info.converged and not info.exact and info.iterations == 3


def test_dykstra_form_equals_literal_dykstra() -> None:
    """The dual projected-gradient form reproduces Dykstra's iterates in matrix form."""
    rng = np.random.default_rng(4)
    n, b, k = 12, 1.0, 7
    Y = _gram(rng, n, 3) + _sym_noise(rng, n, 0.7)
    x, p, q = Y.copy(), np.zeros((n, n)), np.zeros((n, n))
    for _ in range(k):
        w, Q = np.linalg.eigh(x + p)
        y = (Q * np.maximum(w, 0)) @ Q.T
        p = x + p - y
        t = y + q
        x = t.copy()
        np.fill_diagonal(x, np.minimum(np.diag(t), b))
        q = t - x
    assert np.allclose(q - np.diag(np.diag(q)), 0)
    _, info = bounded_diagonal_dykstra(Y, b, max_iter=k, on_fail="return", tol=1e-300)
    np.testing.assert_allclose(info.extra["dual"], np.diag(q), atol=1e-10)


def test_cvxpy_method_and_options() -> None:
    rng = np.random.default_rng(5)
    Y = _gram(rng, 10, 3) + _sym_noise(rng, 10, 0.5)
    S = BoundedDiagonalPSD()
    Xc, info = S.project(Y, method="cvxpy", return_info=True)
    assert info.converged and info.method == "cvxpy-scs"
    np.testing.assert_allclose(Xc, S.project(Y), atol=1e-6)
    with pytest.raises(InvalidParameterError):
        S.project(Y, method="lbfgs")
    with pytest.raises(InvalidParameterError):
        S.project(Y, method="newton", steps=3)


def test_nonsymmetric_input_uses_symmetric_part() -> None:
    rng = np.random.default_rng(6)
    Y = rng.standard_normal((8, 8)) * 2
    S = BoundedDiagonalPSD()
    np.testing.assert_allclose(S.project(Y), S.project((Y + Y.T) / 2), atol=1e-12)


def test_contains_violation_and_validation() -> None:
    S = BoundedDiagonalPSD(bound=1.0)
    assert S.contains(np.eye(3))
    assert not S.contains(2 * np.eye(3))
    assert not S.contains(np.diag([1.0, -0.1]))
    assert S.violation(np.diag([1.5, 0.0])) == pytest.approx(0.5)
    with pytest.raises(InvalidInputError):
        S.project(np.ones((2, 3)))
    with pytest.raises(InvalidInputError):
        S.project(np.array([[np.nan, 0], [0, 1]]))
    with pytest.raises(InvalidParameterError):
        BoundedDiagonalPSD(bound=-1.0)
    with pytest.raises(InvalidParameterError):
        bounded_diagonal_newton(np.eye(2), on_fail="ignore")
    with pytest.raises(InvalidInputError):
        bounded_diagonal_newton(np.eye(3), z0=np.zeros(2))
    with pytest.raises(InvalidInputError):
        BoundedDiagonalPSD(n=3).project(np.eye(4))


def test_support_function() -> None:
    S = BoundedDiagonalPSD(bound=2.0)
    res = S.support(np.ones((3, 3)))
    assert res.value == pytest.approx(18.0, rel=1e-5)
    assert res.info["lower_bound"] <= res.info["upper_bound"] + 1e-9
    neg = S.support(-np.eye(4))
    assert neg.value == 0.0 and np.all(neg.maximizer == 0)
    rng = np.random.default_rng(7)
    W = _sym_noise(rng, 12, 1.0)
    res = BoundedDiagonalPSD().support(W)
    lo, hi = res.info["lower_bound"], res.info["upper_bound"]
    assert lo <= hi + 1e-8 and hi - lo <= 1e-4 * max(1.0, abs(hi))
    assert BoundedDiagonalPSD().contains(res.maximizer, tol=1e-9)
    # no point of the set beats the certified upper bound
    for _ in range(20):
        X = _gram(rng, 12, 3, np.sqrt(rng.uniform(0, 1, 12)))
        assert np.vdot(W, X) <= hi + 1e-9


# ------------------------------------------------------------------- properties


def _sym_matrix(seed: int, n: int, scale: float) -> np.ndarray:
    return _sym_noise(np.random.default_rng(seed), n, scale) + _gram(np.random.default_rng(seed + 1), n, 2)


_prop = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_prop
@given(seed=st.integers(0, 2**31), n=st.integers(1, 9), scale=st.floats(0.0, 20.0))
def test_property_in_set_and_idempotent(seed: int, n: int, scale: float) -> None:
    S = BoundedDiagonalPSD()
    X = S.project(_sym_matrix(seed, n, scale))
    assert np.all(np.diag(X) <= 1.0)
    assert S.contains(X, tol=1e-10)
    np.testing.assert_allclose(S.project(X), X, atol=1e-8)


@_prop
@given(seed=st.integers(0, 2**31), n=st.integers(1, 9), s1=st.floats(0.0, 10.0), s2=st.floats(0.0, 10.0))
def test_property_nonexpansive(seed: int, n: int, s1: float, s2: float) -> None:
    S = BoundedDiagonalPSD()
    Y1, Y2 = _sym_matrix(seed, n, s1), _sym_matrix(seed + 7, n, s2)
    d = np.linalg.norm(S.project(Y1) - S.project(Y2))
    assert d <= np.linalg.norm(Y1 - Y2) + 1e-7


@_prop
@given(seed=st.integers(0, 2**31), n=st.integers(1, 9), scale=st.floats(0.0, 10.0))
def test_property_variational_inequality(seed: int, n: int, scale: float) -> None:
    """<Y - P(Y), X - P(Y)> <= tol for every X in S (sampled Gram matrices of short vectors)."""
    S = BoundedDiagonalPSD()
    Y = _sym_matrix(seed, n, scale)
    P = S.project(Y)
    rng = np.random.default_rng(seed + 11)
    tol = 1e-7 * max(1.0, float(np.linalg.norm(Y)))
    for _ in range(10):
        X = _gram(rng, n, rng.integers(1, n + 1), np.sqrt(rng.uniform(0, 1, n)))
        assert np.vdot(Y - P, X - P) <= tol

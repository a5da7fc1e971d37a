"""Projections, support functions and least squares over pseudo-moment sets, against references."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from sosproj.errors import InvalidInputError, ProjectionError, ResourceLimitError
from sosproj.poly import MomentRelaxation, boolean_cube, unit_ball
from sosproj.sdp.compile import compile_projection, compile_support
from sosproj.sdp.least_squares import LeastSquaresProjector, feasible_norm_bound
from sosproj.sdp.solve import solve
from sosproj.sets.pseudo_moment import PseudoMomentSet


def _expansion(ro) -> sp.csr_matrix:
    """Full-tensor expansion E with vec(T) = E @ orbit_values (independent of the weights)."""
    ids = ro.orbit_ids()
    return sp.csr_matrix((np.ones(ids.size), (np.arange(ids.size), ids)), shape=(ids.size, ro.n_orbits))


def _cvxpy_projection(R, k: int, Y: np.ndarray) -> tuple[np.ndarray, float]:
    """Reference written from the relaxation directly: full-tensor least squares, blocks as matrices."""
    ro = R.readout(k)
    y = cp.Variable(R.n_moments)
    cons = []
    for blk in R.psd_blocks:
        M = cp.reshape(blk.A @ y, (blk.order, blk.order), order="C")
        cons.append((M + M.T) / 2 >> 0)
    A_eq, b_eq = R.equalities
    cons.append(A_eq @ y == b_eq)
    T = _expansion(ro) @ (ro.matrix @ y)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(T - Y.ravel())), cons)
    prob.solve(solver="SCS", eps_abs=1e-10, eps_rel=1e-10, max_iters=200_000)
    assert prob.status == "optimal"
    return ro.to_tensor(ro(y.value)), float(prob.value)


CASES = [(unit_ball, 4, 3, 4, 0), (unit_ball, 6, 3, 4, 1), (boolean_cube, 5, 3, 4, 2), (unit_ball, 6, 2, 4, 3),
         (unit_ball, 8, 2, 2, 4), (boolean_cube, 8, 2, 2, 5)]


@pytest.mark.parametrize(("system", "n", "k", "degree", "seed"), CASES)
def test_projection_agrees_across_solvers_and_with_cvxpy(relaxations, system, n, k, degree, seed):
    R = relaxations(system, n, degree)
    rng = np.random.default_rng(seed)
    Y = 0.4 * rng.standard_normal((n,) * k)      # full, non-symmetric tensor
    ref, ref_val = _cvxpy_projection(R, k, Y)
    outs = {}
    for solver, tol in (("scs", 1e-9), ("clarabel", 1e-8), ("cvxpy", 1e-8), ("admm", 1e-9)):
        S = PseudoMomentSet(R, k, solver=solver, tol=tol)
        X, info = S.project(Y, return_info=True)
        outs[solver] = X
        assert info.converged and info.exact
        assert info.extra["relaxation_check"]
        np.testing.assert_allclose(X, ref, atol=1e-5)
        # the compiled objective is the squared Frobenius distance to the full tensor
        assert info.extra["distance"] ** 2 == pytest.approx(np.sum((X - Y) ** 2), rel=1e-6, abs=1e-9)
        assert info.extra["distance"] ** 2 == pytest.approx(ref_val, rel=1e-5, abs=1e-8)
        assert R.check(info.extra["pseudo_moments"], tol=1e-6).ok
    np.testing.assert_allclose(outs["scs"], outs["clarabel"], atol=1e-5)
    np.testing.assert_allclose(outs["admm"], outs["clarabel"], atol=1e-5)


def test_projection_is_optimal_against_feasible_points(relaxations):
    # variational inequality <Y - P, X - P> <= 0 for feasible X (readouts of measures)
    R = relaxations(unit_ball, 5)
    rng = np.random.default_rng(11)
    S = PseudoMomentSet(R, 3, solver="clarabel", tol=1e-8)
    Y = 0.5 * rng.standard_normal((5,) * 3)
    P = S.project(Y)
    ro = R.readout(3)
    for _ in range(5):
        pts = rng.standard_normal((4, 5))
        pts /= np.maximum(1.0, np.linalg.norm(pts, axis=1, keepdims=True))
        X = ro.to_tensor(ro(R.moments_of(pts)))
        assert np.sum((Y - P) * (X - P)) <= 1e-6


@pytest.mark.parametrize(("system", "n"), [(unit_ball, 5), (boolean_cube, 6)])
def test_a_tensor_of_a_measure_projects_onto_itself(relaxations, system, n):
    R = relaxations(system, n)
    rng = np.random.default_rng(7)

    def points(count):
        if system is boolean_cube:
            return (rng.random((count, n)) < 0.4).astype(float)
        p = rng.standard_normal((count, n))
        return p / (np.linalg.norm(p, axis=1, keepdims=True) * 1.1)

    ro = R.readout(3)
    # many atoms: an interior point (full-rank moment matrix); few atoms: a boundary point
    T_in = ro.to_tensor(ro(R.moments_of(points(60))))
    T_bd = ro.to_tensor(ro(R.moments_of(points(4))))
    for solver, tol, cases in (("scs", 1e-9, (T_in, T_bd)), ("clarabel", 1e-8, (T_in,)),
                               ("admm", 1e-9, (T_in, T_bd))):
        S = PseudoMomentSet(R, 3, solver=solver, tol=tol)
        for T in cases:
            X, info = S.project(T, return_info=True)
            np.testing.assert_allclose(X, T, atol=1e-5)
            assert info.extra["distance"] < 1e-4
            assert S.contains(T, tol=1e-4)
    assert not S.contains(T_in + 0.5 * rng.standard_normal(T_in.shape), tol=1e-3)


def test_support_closed_form_degree2_unit_ball(relaxations):
    n = 4
    R = relaxations(unit_ball, n, 2)
    rng = np.random.default_rng(8)
    for solver in ("scs", "clarabel", "cvxpy", "admm"):
        S = PseudoMomentSet(R, 2, solver=solver, tol=1e-8)
        for shift in (0.0, -5.0):
            W = rng.standard_normal((n, n)) + shift * np.eye(n)   # asymmetric W
            expect = max(np.linalg.eigvalsh((W + W.T) / 2)[-1], 0.0)
            res = S.support(W)
            assert res.value == pytest.approx(expect, abs=1e-6)
            assert np.sum(W * res.maximizer) == pytest.approx(res.value, abs=1e-6)
            assert res.info["relaxation_check"]


def test_support_agrees_across_solvers_and_bounds_measures(relaxations):
    R = relaxations(unit_ball, 5)
    rng = np.random.default_rng(9)
    W = rng.standard_normal((5,) * 3)
    vals = [PseudoMomentSet(R, 3, solver=s, tol=1e-8).support(W).value
            for s in ("scs", "clarabel", "cvxpy", "admm")]
    assert max(vals) - min(vals) < 1e-5
    # SoS value >= value of any actual point of the ball (it relaxes conv{x^(3)})
    ro = R.readout(3)
    for _ in range(20):
        x = rng.standard_normal((1, 5))
        x /= np.linalg.norm(x)
        assert np.sum(W * ro.to_tensor(ro(R.moments_of(x)))) <= vals[0] + 1e-6
    up = PseudoMomentSet(R, 3, solver="clarabel", tol=1e-8).support(W, certify=True).info["upper_bound"]
    assert vals[1] - 1e-9 <= up <= vals[1] + 1e-4


def test_certified_lower_bound_on_the_distance(relaxations):
    R = relaxations(unit_ball, 5)
    S = PseudoMomentSet(R, 3, solver="scs", tol=1e-8)
    Y = 0.6 * np.random.default_rng(10).standard_normal((5,) * 3)
    X, info = S.project(Y, return_info=True, certify=True)
    d, lb = info.extra["distance"], info.extra["distance_lower_bound"]
    assert lb <= d + 1e-12
    assert d - lb < 1e-4 * max(1.0, d)
    assert 0.0 < feasible_norm_bound(R) < np.inf
    # norm bound really bounds feasible points (moments of a measure on the sphere)
    pts = np.eye(5)
    assert np.linalg.norm(R.moments_of(pts)) <= feasible_norm_bound(R)


def test_batch_compiles_once_and_warm_starts(relaxations):
    R = relaxations(unit_ball, 6)
    rng = np.random.default_rng(12)
    S = PseudoMomentSet(R, 3, solver="scs", tol=1e-8)
    base = 0.3 * rng.standard_normal((6,) * 3)
    Ys = np.stack([base + 0.01 * rng.standard_normal(base.shape) for _ in range(3)])
    Xs, infos = S.project_batch(Ys, return_info=True)
    assert len(S._projectors) == 1
    assert infos[1].iterations <= infos[0].iterations and infos[2].iterations <= infos[0].iterations
    clar = PseudoMomentSet(R, 3, solver="clarabel", tol=1e-8)
    for X, Y in zip(Xs, Ys):
        np.testing.assert_allclose(X, clar.project(Y), atol=1e-5)
    with pytest.raises(InvalidInputError):
        S.project_batch(Ys[:, :2])


def test_generalized_least_squares_matches_cvxpy(relaxations):
    # Boolean cube: measure some pairwise and triple moments with different noise weights
    R = relaxations(boolean_cube, 5)
    rng = np.random.default_rng(13)
    m = 12
    cols = rng.choice(np.arange(1, R.n_moments), size=(m, 2))
    B = sp.csr_matrix((rng.choice([-1.0, 1.0], size=2 * m), (np.repeat(np.arange(m), 2), cols.ravel())),
                      shape=(m, R.n_moments))
    w = rng.uniform(0.5, 2.0, size=m)
    proj = LeastSquaresProjector(R, B, w, solver="scs", tol=1e-9)
    y = cp.Variable(R.n_moments)
    cons = [cp.reshape(b.A @ y, (b.order, b.order), order="C") >> 0 for b in R.psd_blocks if b.order > 1]
    cons += [b.A @ y >= 0 for b in R.psd_blocks if b.order == 1]
    cons.append(R.equalities[0] @ y == R.equalities[1])
    c_par = cp.Parameter(m)
    ref = cp.Problem(cp.Minimize(cp.sum(cp.multiply(w, cp.square(B @ y - c_par)))), cons)
    iters = []
    for _ in range(3):
        c = rng.standard_normal(m)
        c_par.value = c
        ref.solve(solver="SCS", eps_abs=1e-10, eps_rel=1e-10, max_iters=200_000)
        yy, res = proj.solve(c)
        iters.append(res.iterations)
        np.testing.assert_allclose(B @ yy, B @ y.value, atol=1e-5)
        assert res.objective == pytest.approx(ref.value, rel=1e-6, abs=1e-8)
        assert R.check(yy, tol=1e-6).ok
        lb = proj.lower_bound(c, res)
        assert lb["lower_bound"] <= res.objective + 1e-10 and lb["gap"] < 1e-4
    with pytest.raises(InvalidInputError):
        proj.solve(np.zeros(m + 1))


def test_compiled_problems_are_the_documented_objectives(relaxations):
    R = relaxations(unit_ball, 3)
    rng = np.random.default_rng(14)
    Y = rng.standard_normal((3,) * 3)
    prob = compile_projection(R, 3, Y)
    y = R.moments_of(rng.standard_normal((2, 3)) / 3)
    ro = R.readout(3)
    assert prob.objective(y) == pytest.approx(np.sum((ro.to_tensor(ro(y)) - Y) ** 2))
    W = rng.standard_normal((3,) * 3)
    sup = compile_support(R, 3, W)
    assert -sup.objective(y) == pytest.approx(np.sum(W * ro.to_tensor(ro(y))))
    assert solve(sup, "clarabel", tol=1e-9).converged


def test_unconverged_projection_raises_with_diagnostics(relaxations):
    R = relaxations(unit_ball, 5)
    S = PseudoMomentSet(R, 3, solver="scs", tol=1e-10, max_iter=3)
    Y = np.random.default_rng(15).standard_normal((5,) * 3)
    with pytest.raises(ProjectionError) as err:
        S.project(Y)
    assert err.value.info["converged"] is False
    X, info = S.project(Y, return_info=True, on_fail="return")
    assert not info.converged and info.extra["status"] != "solved"


def test_too_large_problem_is_refused_before_building(monkeypatch):
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(64 * 1024**3))
    R = MomentRelaxation(unit_ball(30), 4)      # moment matrix of order 496
    S = PseudoMomentSet(R, 3, solver="clarabel")
    with pytest.raises(ResourceLimitError) as err:
        S.project(np.zeros((30,) * 3))
    assert err.value.estimate_bytes > 64 * 1024**3
    assert "496" in str(err.value) and "GiB" in str(err.value)
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", "1000000")
    with pytest.raises(ResourceLimitError):
        PseudoMomentSet(R, 3, solver="scs").projector()

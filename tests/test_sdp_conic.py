"""Solver-neutral conic layer: svec conventions, backends against cvxpy, statuses, policies."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from sosproj.errors import InvalidParameterError, ProjectionError, ResourceLimitError, SolverNotAvailableError
from sosproj.policy import ConvergenceWarning
from sosproj.sdp import Cones, ConicProblem, ConicSolver, smat, solve, svec, svec_permutation
from sosproj.sdp.backends.clarabel import row_permutation
from sosproj.sdp.backends.cvxpy import smat_operator
from sosproj.sdp.conic import cone_violation, project_dual_cone, svec_indices, svec_operator

SOLVERS = ("scs", "clarabel", "cvxpy", "admm")


def _sym(rng: np.random.Generator, d: int) -> np.ndarray:
    X = rng.standard_normal((d, d))
    return X + X.T


# ------------------------------------------------------------------ svec


@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_svec_is_an_isometry_and_inverts(rng, d):
    X, Y = _sym(rng, d), _sym(rng, d)
    for order in ("scs", "clarabel"):
        assert np.isclose(svec(X, order) @ svec(Y, order), np.sum(X * Y))
        np.testing.assert_allclose(smat(svec(X, order), d, order), X)
    np.testing.assert_allclose(svec(X, "scs")[svec_permutation(d)], svec(X, "clarabel"))
    np.testing.assert_allclose(svec_operator(d) @ X.ravel(), svec(X))
    np.testing.assert_allclose(smat_operator(d) @ svec(X), X.ravel())


def test_svec_orders_are_the_documented_triangles():
    i, j = svec_indices(3, "scs")          # lower triangle, column by column
    assert list(zip(i.tolist(), j.tolist())) == [(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (2, 2)]
    i, j = svec_indices(3, "clarabel")     # upper triangle, column by column
    assert list(zip(i.tolist(), j.tolist())) == [(0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)]


def _entry_problem(d: int, target: tuple[int, int], value: float) -> ConicProblem:
    """min tr(X) s.t. X PSD, X_ii = 1 for i, X[target] = value: the answer pins one entry."""
    m = d * (d + 1) // 2
    i, j = svec_indices(d)
    rows, cols, vals = [], [], []
    b = []
    for r, (a, c) in enumerate(zip(i.tolist(), j.tolist())):
        if a == c or (max(target), min(target)) == (a, c):
            rows.append(len(b))
            cols.append(r)
            vals.append(1.0 if a == c else 1 / np.sqrt(2))
            b.append(1.0 if a == c else value)
    Aeq = sp.csr_matrix((vals, (rows, cols)), shape=(len(b), m))
    A = sp.vstack([Aeq, -sp.identity(m)]).tocsc()
    q = np.zeros(m)
    return ConicProblem(None, q, A, np.concatenate([b, np.zeros(m)]), Cones(zero=len(b), psd=(d,)))


@pytest.mark.parametrize("solver", ["scs", "clarabel", "admm"])
def test_direct_backends_read_the_right_triangle(solver):
    # an asymmetric pattern of constraints: a wrong svec order puts the pinned value elsewhere
    d = 4
    prob = _entry_problem(d, (3, 1), 0.3)
    res = solve(prob, solver=solver, tol=1e-9)
    X = smat(res.x, d)
    assert abs(X[3, 1] - 0.3) < 1e-6 and abs(X[1, 3] - 0.3) < 1e-6
    assert np.all(np.abs(np.diag(X) - 1) < 1e-6)
    assert np.linalg.eigvalsh(X)[0] > -1e-6


def test_clarabel_row_permutation_maps_psd_rows_only():
    prob = ConicProblem(None, np.zeros(1), sp.csc_matrix(np.ones((2 + 6 + 3, 1))), np.zeros(11),
                        Cones(zero=1, nonneg=1, psd=(3, 2)))
    p = row_permutation(prob)
    assert p[:2].tolist() == [0, 1]
    assert sorted(p.tolist()) == list(range(11))
    assert p[2:8].tolist() == (2 + svec_permutation(3)).tolist()


# --------------------------------------------------- hand-written SDPs vs cvxpy


def _nearest_correlation(C: np.ndarray) -> ConicProblem:
    d = C.shape[0]
    m = d * (d + 1) // 2
    i, j = svec_indices(d)
    diag = np.flatnonzero(i == j)
    Aeq = sp.csr_matrix((np.ones(d), (np.arange(d), diag)), shape=(d, m))
    A = sp.vstack([Aeq, -sp.identity(m)]).tocsc()
    b = np.concatenate([np.ones(d), np.zeros(m)])
    return ConicProblem(2 * sp.identity(m, format="csc"), -2 * svec(C), A, b, Cones(zero=d, psd=(d,)),
                        offset=float(np.sum(C * C)))


def _cvxpy_nearest_correlation(C: np.ndarray) -> np.ndarray:
    d = C.shape[0]
    X = cp.Variable((d, d), symmetric=True)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(X - C)), [X >> 0, cp.diag(X) == 1])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return X.value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_correlation_matches_an_independent_cvxpy_model(seed):
    rng = np.random.default_rng(seed)
    d = 5
    C = rng.standard_normal((d, d))      # not symmetric on purpose
    ref = _cvxpy_nearest_correlation(C)
    prob = _nearest_correlation(C)
    for solver in SOLVERS:
        res = solve(prob, solver=solver, tol=1e-9)
        assert res.converged and res.status == "solved"
        np.testing.assert_allclose(smat(res.x, d), ref, atol=1e-5)
        assert res.objective == pytest.approx(np.sum((ref - C) ** 2), rel=1e-6)
        # optimality conditions recomputed from the returned triple
        assert res.primal_residual < 1e-7 and res.dual_residual < 1e-7 and res.duality_gap < 1e-7
        lb = prob.lower_bound(res.x, res.y_dual, x_bound=np.sqrt(d) * d)
        assert lb["lower_bound"] <= res.objective + 1e-12
        assert lb["gap"] < 1e-5


def test_second_order_and_nonnegative_cones_against_cvxpy(rng):
    # min ||x - c||^2  s.t.  ||x[1:]|| <= x[0],  x >= -0.2
    n = 4
    c = rng.standard_normal(n)
    A = sp.vstack([-sp.identity(n), -sp.identity(n)]).tocsc()
    b = np.concatenate([0.2 * np.ones(n), np.zeros(n)])
    prob = ConicProblem(2 * sp.identity(n, format="csc"), -2 * c, A, b, Cones(nonneg=n, soc=(n,)),
                        offset=float(c @ c))
    x = cp.Variable(n)
    cp.Problem(cp.Minimize(cp.sum_squares(x - c)), [cp.SOC(x[0], x[1:]), x >= -0.2]).solve(
        solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    for solver in SOLVERS:
        res = solve(prob, solver=solver, tol=1e-9)
        np.testing.assert_allclose(res.x, x.value, atol=1e-6)


def test_dual_cone_projection_and_violation():
    cones = Cones(zero=1, nonneg=1, soc=(3,), psd=(2,))
    v = np.array([5.0, -1.0, 0.0, 3.0, 4.0, 1.0, 0.0, -1.0])
    p = project_dual_cone(v, cones)
    assert p[0] == 5.0 and p[1] == 0.0
    assert np.linalg.norm(p[3:5]) <= p[2] + 1e-12
    assert np.linalg.eigvalsh(smat(p[5:], 2))[0] >= -1e-12
    assert cone_violation(p, cones, dual=True) < 1e-12
    assert cone_violation(v, cones) > 0


# ----------------------------------------------------------- status handling


def test_scs_iteration_cap_is_not_reported_as_solved():
    prob = _nearest_correlation(np.random.default_rng(3).standard_normal((6, 6)))
    res = solve(prob, solver="scs", tol=1e-12, max_iter=5, on_fail="return")
    assert not res.converged
    assert res.status == "max_iter"
    assert "inaccurate" in res.info["raw_status"]
    with pytest.raises(ProjectionError) as err:
        solve(prob, solver="scs", tol=1e-12, max_iter=5)
    assert err.value.info["status"] == "max_iter"
    assert err.value.info["converged"] is False
    with pytest.warns(ConvergenceWarning):
        solve(prob, solver="scs", tol=1e-12, max_iter=5, on_fail="warn")


def test_independent_check_overrides_a_solver_that_claims_success():
    prob = _nearest_correlation(np.random.default_rng(4).standard_normal((4, 4)))
    res = solve(prob, solver="clarabel", tol=1e-6, check_factor=1e-12, on_fail="return")
    assert res.info["raw_status"] == "Solved"
    assert res.status == "unconverged" and not res.converged


def test_fallback_chain_records_attempts():
    prob = _nearest_correlation(np.random.default_rng(5).standard_normal((4, 4)))
    res = solve(prob, solver=("scs", "clarabel"), tol=1e-9, max_iter=25)   # too few for SCS, enough for IPM
    assert res.solver == "clarabel"
    assert [a[0] for a in res.info["attempts"]] == ["scs", "clarabel"]
    assert res.info["attempts"][0][1] == "max_iter"


def test_mosek_is_refused_cleanly_without_licence():
    from sosproj.sdp.backends.mosek import available

    prob = _nearest_correlation(np.eye(3))
    if available():  # pragma: no cover - machines with a licence
        assert solve(prob, solver="mosek", tol=1e-8).converged
    else:
        with pytest.raises(SolverNotAvailableError):
            solve(prob, solver="mosek")


def test_workspace_reuses_compiled_data_and_warm_starts():
    rng = np.random.default_rng(6)
    d = 6
    C0 = rng.standard_normal((d, d))
    prob = _nearest_correlation(C0)
    ws = ConicSolver(prob, "scs", tol=1e-8)
    cold = ws.solve()
    C1 = C0 + 0.01 * rng.standard_normal((d, d))
    warm = ws.solve(q=-2 * svec(C1), offset=float(np.sum(C1 * C1)))
    ref = _cvxpy_nearest_correlation(C1)
    np.testing.assert_allclose(smat(warm.x, d), ref, atol=1e-5)
    assert warm.iterations < cold.iterations


def test_bad_arguments_are_refused():
    prob = _nearest_correlation(np.eye(2))
    with pytest.raises(InvalidParameterError):
        solve(prob, solver="gurobi")
    with pytest.raises(InvalidParameterError):
        solve(prob, on_fail="ignore")
    with pytest.raises(InvalidParameterError):
        solve(prob, tol=0.0)
    with pytest.raises(ValueError):
        ConicProblem(None, np.zeros(2), sp.csc_matrix(np.ones((3, 2))), np.zeros(3), Cones(zero=2))


def test_memory_refusal_carries_the_estimate():
    prob = _nearest_correlation(np.eye(30))
    with pytest.raises(ResourceLimitError) as err:
        ConicSolver(prob, "clarabel", memory_limit=1e4)
    assert err.value.estimate_bytes > 1e4
    assert "estimated" in str(err.value)


def test_fallback_chain_skips_a_backend_too_large_for_memory(monkeypatch):
    prob = _nearest_correlation(np.random.default_rng(7).standard_normal((30, 30)))
    # Clarabel's dense KKT block for order 30 is ~3.5 MB; SCS's sparse workspace is far smaller
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(2_000_000))
    res = solve(prob, solver=("clarabel", "scs"), tol=1e-6)
    assert res.solver == "scs"
    assert res.info["attempts"][0] == ("clarabel", "too large")
    with pytest.raises(ResourceLimitError):
        solve(prob, solver="clarabel")


def test_cone_module_projections_against_eigendecomposition_and_distance() -> None:
    """sosproj.sdp.cones: PSD projection (both branches) equals the clipped eigendecomposition, the
    SOC projection is the nearest point (checked against a dense search), project_cone is idempotent
    and cone_violation is the distance to the projection."""
    from sosproj.sdp.cones import PSDProjector, project_cone, project_psd_svec, project_soc

    rng = np.random.default_rng(0)
    for d, shift in ((5, -2.0), (5, 2.0), (1, -1.0), (6, 0.0)):   # mostly negative / mostly positive
        M = rng.standard_normal((d, d))
        X = (M + M.T) / 2 + shift * np.eye(d)
        w, U = np.linalg.eigh(X)
        ref = (U * np.maximum(w, 0)) @ U.T
        assert np.allclose(smat(PSDProjector(d)(svec(X)), d), ref, atol=1e-12)
        assert np.allclose(project_psd_svec(svec(X), d), svec(ref), atol=1e-12)
    for v in (np.array([0.5, 1.0, -1.0]), np.array([-3.0, 1.0, 0.0]), np.array([2.0, 0.1, 0.1])):
        p = project_soc(v)
        assert np.linalg.norm(p[1:]) <= p[0] + 1e-12
        # nearest point: no sampled point of the cone is closer
        t = rng.uniform(0, 3, 4000)
        ang = rng.uniform(0, 2 * np.pi, 4000)
        r = t * rng.uniform(0, 1, 4000)
        pts = np.column_stack([t, r * np.cos(ang), r * np.sin(ang)])
        assert np.linalg.norm(v - p) <= np.min(np.linalg.norm(pts - v, axis=1)) + 1e-12
    cones = Cones(zero=1, nonneg=2, soc=(3,), psd=(3,))
    s = rng.standard_normal(cones.dim)
    p = project_cone(s, cones)
    assert np.allclose(project_cone(p, cones), p, atol=1e-12)
    assert cone_violation(s, cones) == pytest.approx(float(np.linalg.norm(s - p)), rel=1e-10)
    pd = project_dual_cone(s, cones)
    assert pd[0] == s[0] and cone_violation(s, cones, dual=True) == pytest.approx(float(np.linalg.norm(s - pd)),
                                                                                  rel=1e-10)


# ------------------------------------------------------------------ budgeted cone violation (issue 15, session 29)


def test_cone_violation_budget_bounds_large_blocks_by_cholesky(rng, monkeypatch):
    """With a ``budget``, a large PSD block within it is bounded by one Cholesky factorization: the answer is an
    upper bound on the exact distance and at most the budget; a block outside it gets its exact distance, so the
    test "violation <= budget" decides as the exact distance does."""
    import sosproj.sdp.cones as cones_mod

    monkeypatch.setattr(cones_mod, "CONE_CHECK_CHOLESKY_MIN_ORDER", 20)
    d = 40
    cones = Cones(zero=1, nonneg=2, psd=(d, 5))
    for trial in range(30):
        V = np.linalg.qr(rng.standard_normal((d, d)))[0]
        lam = np.abs(rng.standard_normal(d))
        k = trial % 4                                  # 0-3 negative eigenvalues of sizes 1e-12 ... 1e-2
        lam[:k] = -(10.0 ** rng.uniform(-12, -2, k))
        S = (V * lam) @ V.T
        s = np.concatenate([[0.3], np.abs(rng.standard_normal(2)), svec(S), svec(_sym(rng, 5) + 20 * np.eye(5))])
        exact = cone_violation(s, cones)
        for budget in (1e-9, 1e-6, 1e-3, 1e-1):
            b = cone_violation(s, cones, budget=budget)
            assert b >= exact * (1 - 1e-12)             # an upper bound
            assert (b <= budget) == (exact <= budget) or (exact <= budget < b and b == pytest.approx(exact))
            if b > budget:
                assert b == pytest.approx(exact, rel=1e-12)   # the exact distance decides
    # the dual cone (zero block free) and a clearly indefinite block: exact
    S = np.diag(np.r_[-1.0, np.ones(d - 1)])
    s = np.concatenate([[5.0], [1.0, 1.0], svec(S), svec(np.eye(5))])
    assert cone_violation(s, cones, dual=True, budget=1e-3) == pytest.approx(1.0)
    assert cone_violation(s, cones, dual=True, budget=1e-3) == cone_violation(s, cones, dual=True)


def test_conic_check_reports_bounded_violations(monkeypatch):
    """``ConicSolver``'s answer check bounds the cone violations of large PSD blocks (flagged in ``info``) and
    still refuses an answer whose block violates the cone beyond the tolerance."""
    import sosproj.sdp.cones as cones_mod
    from sosproj.sdp.backends.base import RawSolution

    monkeypatch.setattr(cones_mod, "CONE_CHECK_CHOLESKY_MIN_ORDER", 3)
    d = 4     # min <C, X> s.t. tr X = 1, X PSD: the smallest eigenvalue of C
    C = np.diag([1.0, 2.0, 3.0, 4.0])
    nv = svec(C).size
    A = sp.vstack([sp.csc_matrix(svec(np.eye(d))[None, :]), -sp.eye(nv)]).tocsc()
    prob = ConicProblem(None, svec(C), A, np.r_[1.0, np.zeros(nv)], Cones(zero=1, psd=(d,)))
    ws = ConicSolver(prob, "clarabel", tol=1e-8)
    good = ws.solve()
    assert good.converged and good.info["cone_violation_bounded"]
    assert good.info["cone_violation_primal"] <= 1e-7 and good.info["cone_violation_dual"] <= 1e-7
    # the same answer with a moment block pushed out of the cone: refused, with the exact violation
    X = smat(good.x, d) - 1e-3 * np.eye(d)
    x = svec(X)
    raw = RawSolution(x, good.y_dual, prob.b - prob.A @ x, "solved", "solved", 1, 0.0, 0.0, {})
    bad = ws._check(raw, "clarabel")
    assert not bad.converged and bad.status == "unconverged"
    assert bad.info["cone_violation_primal"] == pytest.approx(
        cone_violation(raw.s, prob.cones) / (1 + np.linalg.norm(raw.s)), rel=1e-12)

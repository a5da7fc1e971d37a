"""The structure-exploiting ADMM backend (``solver="admm"``) and ``solver="auto"``."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from sosproj.errors import InvalidParameterError, ProjectionError, ResourceLimitError, SolverNotAvailableError
from sosproj.poly import boolean_cube, sparse_ball, sphere, unit_ball
from sosproj.sdp.backends import admm, estimate_memory
from sosproj.sdp.compile import compile_projection, compile_support
from sosproj.sdp.conic import Cones, ConicProblem, cone_violation, smat, svec
from sosproj.sdp.least_squares import LeastSquaresProjector
from sosproj.sdp.solve import ConicSolver, solve
from sosproj.sets.pseudo_moment import PseudoMomentSet


def _reference(prob):
    """Clarabel (interior point) where it reaches 1e-7 (it stalls on some degenerate moment SDPs),
    else SCS at 1e-10."""
    ref = solve(prob, solver="clarabel", tol=1e-9, on_fail="return")
    if max(ref.primal_residual, ref.dual_residual, ref.duality_gap) < 1e-7:
        return ref
    ref = solve(prob, solver="scs", tol=1e-10, max_iter=400_000)
    return ref


def _noisy_tensor(R, k: int, seed: int, atoms: int = 30, noise: float = 0.05) -> np.ndarray:
    """Moments of a random measure on the set plus Gaussian noise (the mechanism's input)."""
    rng = np.random.default_rng(seed)
    n = R.readout(k).n
    pts = rng.standard_normal((atoms, n))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    ro = R.readout(k)
    T = ro.to_tensor(ro(R.moments_of(pts, check_support=False)))
    return T + noise * rng.standard_normal(T.shape)


@pytest.mark.parametrize(("system", "n", "kw", "seed"), [
    (unit_ball, 5, {}, 0), (unit_ball, 7, {}, 1), (boolean_cube, 6, {}, 2)])
def test_projection_matches_clarabel_and_passes_the_relaxation_check(relaxations, system, n, kw, seed):
    R = relaxations(system, n, **kw)
    k = 3
    rng = np.random.default_rng(seed)
    Y = 0.4 * rng.standard_normal((R.readout(k).n,) * k)
    prob = compile_projection(R, k, Y)
    ref = _reference(prob)
    res = solve(prob, solver="admm", tol=1e-9)
    assert res.converged and res.solver == "admm"
    ro = R.readout(k)
    np.testing.assert_allclose(ro(res.x), ro(ref.x), atol=1e-5)
    assert res.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-8)
    assert R.check(res.x, tol=1e-6).ok
    # the independent re-check (SCS's definitions) agrees with ADMM's own numbers
    assert max(res.primal_residual, res.dual_residual, res.duality_gap) <= 1e-8


def test_sparse_system_projection_satisfies_its_optimality_conditions(relaxations):
    """P_t (n = 3, t = 2): references take 20+ s here, so check optimality directly: the KKT
    residuals recomputed from the returned triple and the variational inequality
    <Y - P, X - P> <= 0 against readouts of measures on the sparse set."""
    R = relaxations(sparse_ball, 3, t=2)
    rng = np.random.default_rng(3)
    ro = R.readout(3)
    Y = 0.4 * rng.standard_normal((ro.n,) * 3)
    S = PseudoMomentSet(R, 3, solver="admm", tol=1e-9)
    P, info = S.project(Y, return_info=True)
    assert info.converged and info.extra["relaxation_check"]
    assert max(info.extra["primal_residual"], info.extra["dual_residual"], info.extra["duality_gap"]) <= 1e-8
    d = np.sum((Y - P) ** 2)
    for _ in range(10):
        pts = rng.standard_normal((4, 3))
        pts[np.arange(4), rng.integers(0, 3, size=4)] = 0.0          # 2-sparse points of the ball
        pts /= np.maximum(1.0, np.linalg.norm(pts, axis=1, keepdims=True))
        X = ro.to_tensor(ro(R.moments_of(pts)))
        assert np.sum((Y - P) * (X - P)) <= 1e-6 * max(1.0, d)


def test_every_iterate_is_in_the_cones_and_complementary(relaxations):
    """s = Pi_K(w) and y = rho (Pi_K(w) - w): cone membership and s'y = 0 hold even unconverged."""
    R = relaxations(unit_ball, 6)
    prob = compile_projection(R, 3, _noisy_tensor(R, 3, seed=4, noise=0.3))
    res = solve(prob, solver="admm", tol=1e-12, max_iter=7, on_fail="return")
    assert res.status == "max_iter" and not res.converged and res.iterations == 7
    assert cone_violation(res.s, prob.cones) < 1e-9
    assert cone_violation(res.y_dual, prob.cones, dual=True) < 1e-9
    assert abs(float(res.s @ res.y_dual)) < 1e-8 * (1 + np.linalg.norm(res.s) * np.linalg.norm(res.y_dual))


def test_support_values_match_closed_form_and_clarabel(relaxations):
    R2 = relaxations(unit_ball, 4, 2)
    rng = np.random.default_rng(5)
    for shift in (0.0, -4.0):
        W = rng.standard_normal((4, 4)) + shift * np.eye(4)
        expect = max(np.linalg.eigvalsh((W + W.T) / 2)[-1], 0.0)
        res = PseudoMomentSet(R2, 2, solver="admm", tol=1e-9).support(W)
        assert res.value == pytest.approx(expect, abs=1e-6)
    R = relaxations(boolean_cube, 5)
    W3 = rng.standard_normal((5,) * 3)
    prob = compile_support(R, 3, W3)
    a = solve(prob, solver="admm", tol=1e-9)
    c = _reference(prob)
    assert a.objective == pytest.approx(c.objective, abs=1e-6)


def test_a_measure_projects_onto_itself(relaxations):
    R = relaxations(unit_ball, 6)
    rng = np.random.default_rng(6)
    pts = rng.standard_normal((3, 6))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)      # on the sphere: a degenerate face
    ro = R.readout(3)
    T = ro.to_tensor(ro(R.moments_of(pts)))
    X, info = PseudoMomentSet(R, 3, solver="admm", tol=1e-9).project(T, return_info=True)
    np.testing.assert_allclose(X, T, atol=1e-5)
    assert info.extra["distance"] < 1e-4


def test_nondiagonal_structure_is_refused_and_auto_uses_scs(relaxations):
    R = relaxations(sphere, 4)        # the readout of the sphere reduces x_i^2 terms: P is not diagonal
    Y = 0.3 * np.random.default_rng(8).standard_normal((4,) * 3)
    prob = compile_projection(R, 3, Y)
    with pytest.raises(SolverNotAvailableError, match="diagonal P"):
        solve(prob, solver="admm")
    ws = ConicSolver(prob, "auto", tol=1e-8)
    res = ws.solve()
    assert res.solver == "scs" and res.converged
    assert "diagonal P" in res.info["auto_note"]
    # generalized least squares with a dense measurement map: same route
    B = sp.csr_matrix(np.random.default_rng(9).standard_normal((3, R.n_moments)))
    y, r2 = LeastSquaresProjector(R, B, tol=1e-7).solve(np.zeros(3))
    assert r2.solver == "scs" and r2.converged


def test_auto_hands_an_unconverged_admm_run_to_warm_started_scs(relaxations, monkeypatch):
    R = relaxations(unit_ball, 5)
    prob = compile_projection(R, 3, _noisy_tensor(R, 3, seed=10, noise=0.2))
    monkeypatch.setattr(admm, "DEFAULT_MAX_ITER", 4)
    ws = ConicSolver(prob, "auto", tol=1e-8, anderson=5)      # ADMM's own setting is not passed to SCS
    res = ws.solve()
    assert res.converged and res.solver == "scs"
    assert res.info["attempts"] == [("admm", "max_iter"), ("scs", "solved")]
    assert res.info["admm_iterations"] == 4
    ref = _reference(prob)
    assert res.objective == pytest.approx(ref.objective, rel=1e-5)


def test_iteration_cap_and_time_limit_are_never_reported_as_solved(relaxations):
    R = relaxations(unit_ball, 5)
    prob = compile_projection(R, 3, _noisy_tensor(R, 3, seed=11, noise=0.2))
    with pytest.raises(ProjectionError) as err:
        solve(prob, solver="admm", tol=1e-12, max_iter=3)
    assert err.value.info["status"] == "max_iter" and err.value.info["converged"] is False
    assert np.isfinite(err.value.info["primal_residual"])
    res = solve(prob, solver="admm", tol=1e-12, time_limit=1e-9, on_fail="return")
    assert res.status == "time_limit" and not res.converged


def test_infeasible_problem_is_not_solved_and_auto_lets_scs_certify_it():
    """ADMM has no infeasibility detection: it runs to its cap (max_iter); auto hands over to SCS."""
    # x >= 1 and x <= 0
    prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([0.0]), sp.csc_matrix([[-1.0], [1.0]]),
                        np.array([-1.0, 0.0]), Cones(nonneg=2))
    res = solve(prob, solver="admm", tol=1e-8, max_iter=500, on_fail="return")
    assert res.status == "max_iter" and not res.converged
    res = ConicSolver(prob, "auto", tol=1e-8, max_iter=500).solve(on_fail="return")
    assert res.info["attempts"] == [("admm", "max_iter"), ("scs", "infeasible")]
    assert res.status == "infeasible" and not res.converged
    # unbounded (min -1e300 x, x >= 0): the iterate overflows and is reported as an error, not solved
    unb = ConicProblem(None, np.array([-1e300]), sp.csc_matrix([[-1.0]]), np.array([0.0]), Cones(nonneg=1))
    with np.errstate(all="ignore"):
        res = solve(unb, solver="admm", tol=1e-8, max_iter=500, on_fail="return")
        assert res.status == "error" and "non-finite" in res.info["raw_status"]
        res = ConicSolver(unb, "auto", tol=1e-8, max_iter=500).solve(on_fail="return")
    assert res.info["attempts"][0] == ("admm", "error") and not res.converged


def test_workspace_warm_starts_and_reuses_the_factorization(relaxations):
    R = relaxations(unit_ball, 6)
    rng = np.random.default_rng(12)
    S = PseudoMomentSet(R, 3, solver="admm", tol=1e-8)
    base = _noisy_tensor(R, 3, seed=12, noise=0.1)
    Ys = np.stack([base + 0.002 * rng.standard_normal(base.shape) for _ in range(3)])
    Xs, infos = S.project_batch(Ys, return_info=True)
    assert len(S._projectors) == 1
    assert infos[1].iterations < infos[0].iterations and infos[2].iterations < infos[0].iterations
    ref = PseudoMomentSet(R, 3, solver="clarabel", tol=1e-9)
    for X, Y in zip(Xs, Ys):
        np.testing.assert_allclose(X, ref.project(Y), atol=1e-5)


def test_a_set_solved_with_admm_pickles(relaxations):
    R = relaxations(unit_ball, 4)
    S = PseudoMomentSet(R, 3, solver="admm", tol=1e-8)
    Y = _noisy_tensor(R, 3, seed=13)
    X = S.project(Y)
    S2 = pickle.loads(pickle.dumps(S))
    np.testing.assert_allclose(S2.project(Y), X, atol=1e-6)


def test_one_set_shared_by_threads_gives_the_serial_answers(relaxations):
    """joblib's threading backend and in-process Dask share one set: workspaces are per thread."""
    from concurrent.futures import ThreadPoolExecutor

    R = relaxations(unit_ball, 4)
    rng = np.random.default_rng(15)
    Ws = [rng.standard_normal((4,) * 3) for _ in range(8)]
    serial = [PseudoMomentSet(R, 3, tol=1e-8).support(W).value for W in Ws]
    shared = PseudoMomentSet(R, 3, tol=1e-8)
    with ThreadPoolExecutor(max_workers=4) as pool:
        values = list(pool.map(lambda W: shared.support(W).value, Ws))
    np.testing.assert_allclose(values, serial, atol=1e-6)
    assert len(shared._supports) >= 1


def test_bad_settings_and_memory():
    d = 4
    C = np.random.default_rng(14).standard_normal((d, d))
    m = d * (d + 1) // 2
    prob = ConicProblem(2 * sp.identity(m, format="csc"), -2 * svec(C), -sp.identity(m, format="csc"),
                        np.zeros(m), Cones(psd=(d,)), offset=float(np.sum(C * C)))
    with pytest.raises(InvalidParameterError):
        solve(prob, solver="admm", alpha=2.5)
    res = solve(prob, solver="admm", tol=1e-10)          # nearest PSD matrix: one eigh
    lam, V = np.linalg.eigh((C + C.T) / 2)
    np.testing.assert_allclose(smat(res.x, d), (V * np.maximum(lam, 0)) @ V.T, atol=1e-8)
    for name in ("admm", "auto"):
        assert estimate_memory(prob.n, prob.cones, prob.A.nnz, prob.P.nnz, name) > 0
    with pytest.raises(ResourceLimitError) as err:
        ConicSolver(prob, "admm", memory_limit=100)
    assert err.value.estimate_bytes > 100
    # many coupled rows (P_t's localizing blocks): the ADMM refuses them structurally, so "auto"
    # is estimated as SCS and is not refused for a Woodbury matrix it would never build
    many = Cones(zero=1, psd=(283,) + (133,) * 8)
    est = {name: estimate_memory(1567, many, 400_000, 0, name) for name in ("auto", "scs", "admm")}
    assert est["auto"] == est["scs"]
    assert est["admm"] < 2e9

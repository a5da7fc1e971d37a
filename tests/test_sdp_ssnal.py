"""The semismooth Newton augmented Lagrangian backend (``solver="ssnal"``)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from sosproj.errors import (
    InvalidParameterError,
    ProjectionError,
    ResourceLimitError,
    SolverNotAvailableError,
    UnknownOptionError,
)
from sosproj.poly import boolean_cube, unit_ball
from sosproj.sdp.backends import BACKENDS, backend_class, estimate_memory
from sosproj.sdp.backends.ssnal import SsnalBackend, _PsdBlock
from sosproj.sdp.compile import compile_projection, compile_support
from sosproj.sdp.conic import Cones, ConicProblem, cone_violation, smat, svec
from sosproj.sdp.solve import ConicSolver, solve
from sosproj.sets.pseudo_moment import PseudoMomentSet


def _noisy_tensor(R, k: int, seed: int, atoms: int = 30, noise: float = 0.05) -> np.ndarray:
    """Moments of a random measure on the sphere plus Gaussian noise (the mechanism's input)."""
    rng = np.random.default_rng(seed)
    ro = R.readout(k)
    pts = rng.standard_normal((atoms, ro.n))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    T = ro.to_tensor(ro(R.moments_of(pts, check_support=False)))
    return T + noise * rng.standard_normal(T.shape)


def _kkt(prob, res) -> float:
    """Largest of the recomputed residuals, the cone violations and the complementarity of ``res``."""
    s, y = res.s, res.y_dual
    comp = abs(float(s @ y)) / (1.0 + np.linalg.norm(s) * np.linalg.norm(y))
    return max(res.primal_residual, res.dual_residual, res.duality_gap, cone_violation(s, prob.cones),
               cone_violation(y, prob.cones, dual=True), comp)


def test_registered_with_the_backend_contract():
    cls = backend_class("ssnal")
    assert cls is SsnalBackend and BACKENDS["ssnal"].endswith(":SsnalBackend") and cls.warm_start
    cones = Cones(zero=1, psd=(45, 9))
    assert estimate_memory(495, cones, 3000, 120, "ssnal") > estimate_memory(495, cones, 3000, 120, "admm")


def _random_sym(d: int, npos: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([-rng.uniform(0.5, 2.0, d - npos), rng.uniform(0.5, 2.0, npos)])
    return (Q * lam) @ Q.T


@pytest.mark.parametrize("npos", [0, 2, 5, 7])
def test_psd_jacobian_is_the_derivative_of_the_projection(npos):
    """Away from zero eigenvalues the projection is smooth and J is its derivative (central differences),
    whichever eigenspace (positive or negative) the product is formed from."""
    d = 7
    W = _random_sym(d, npos, seed=npos)
    H = _random_sym(d, 3, seed=10 + npos)
    blk = _PsdBlock(d, single=False)
    blk.decompose(svec(W))
    got = smat(blk.jacobian(svec(H)), d)
    t = 1e-6
    plus, _ = _PsdBlock(d).decompose(svec(W + t * H))
    minus, _ = _PsdBlock(d).decompose(svec(W - t * H))
    np.testing.assert_allclose(got, smat((plus - minus) / (2 * t), d), atol=1e-7)
    # the single-precision products (the CG default) agree to float32 accuracy
    blk32 = _PsdBlock(d, single=True)
    blk32.decompose(svec(W))
    np.testing.assert_allclose(blk32.jacobian(svec(H)), blk.jacobian(svec(H)), atol=1e-5)
    # the preconditioner's diagonal is exact on the diagonal entries of the matrix
    diag = blk.jacobian_diag()
    for i in range(d):
        E = np.zeros((d, d))
        E[i, i] = 1.0
        assert np.isclose(svec(E) @ blk.jacobian(svec(E)), diag[svec(E).nonzero()[0][0]])


@pytest.mark.parametrize(("d", "npos"), [(7, 1), (7, 6), (30, 3), (30, 15), (30, 27), (61, 50)])
def test_jacobian_diag_equals_the_definition(d, npos):
    """The preconditioner's diagonal in O(N^2 min(neg, npos)) (issue 15, session 30) is svec's entries of
    S Om S' (S = Q o Q, Om the Jacobian's weights: 0 on negative pairs, 1 on positive ones, nu across), the
    O(N^3) form it replaced, whichever side is the smaller."""
    W = _random_sym(d, npos, seed=d + npos)
    blk = _PsdBlock(d, single=False)
    blk.decompose(svec(W))
    neg = d - blk.npos
    assert blk.npos == npos
    lp, ln = blk.lam[neg:], blk.lam[:neg]
    Om = np.zeros((d, d))
    Om[neg:, neg:] = 1.0
    nu = lp[:, None] / (lp[:, None] - ln[None, :])
    Om[neg:, :neg] = nu
    Om[:neg, neg:] = nu.T
    S = blk.Q * blk.Q
    np.testing.assert_allclose(blk.jacobian_diag(), ((S @ Om) @ S.T).flat[blk.proj.lower], rtol=0, atol=1e-13)


def test_decompose_returns_the_moreau_pair():
    d = 6
    W = _random_sym(d, 4, seed=3)
    plus, minus = _PsdBlock(d).decompose(svec(W))
    lam, V = np.linalg.eigh(W)
    np.testing.assert_allclose(smat(plus, d), (V * np.maximum(lam, 0)) @ V.T, atol=1e-12)
    np.testing.assert_allclose(plus - minus, svec(W), atol=1e-12)
    assert np.linalg.eigvalsh(smat(minus, d))[0] > -1e-12


@pytest.mark.parametrize(("system", "n", "seed", "reference"), [
    (unit_ball, 5, 0, "clarabel"), (unit_ball, 7, 1, "admm"), (boolean_cube, 6, 2, "clarabel")])
def test_projection_matches_clarabel(relaxations, system, n, seed, reference):
    """n <= 8: the same projection as the interior-point solver, with the Newton phase doing the work
    (phase one stops at 1e-2). On the ball at n = 7 Clarabel stops at 'AlmostSolved' (gap 2e-9)
    2e-6 away from both first-order answers, which agree to 1e-9 there: the orbit values are then
    compared with the ADMM at tol 1e-10, and with Clarabel to its own accuracy."""
    R = relaxations(system, n)
    rng = np.random.default_rng(seed)
    Y = 0.4 * rng.standard_normal((R.readout(3).n,) * 3)
    prob = compile_projection(R, 3, Y)
    ref = solve(prob, solver="clarabel", tol=1e-9, on_fail="return")
    ref_accuracy = max(ref.primal_residual, ref.dual_residual, ref.duality_gap)
    assert ref_accuracy < 1e-6
    if ref_accuracy >= 1e-8:      # Clarabel 0.11.1 stops at gap 5e-8 on the ball at n = 5: the ADMM is the tight one
        reference = "admm"
    res = solve(prob, solver="ssnal", tol=1e-8, admm_tol=1e-2)
    assert res.converged and res.solver == "ssnal" and res.info["ssnal_newton"] >= 1
    ro = R.readout(3)
    tight = solve(prob, solver="admm", tol=1e-10) if reference == "admm" else ref
    np.testing.assert_allclose(ro(res.x), ro(tight.x), atol=1e-6)
    np.testing.assert_allclose(ro(res.x), ro(ref.x), atol=1e-5)
    assert res.objective == pytest.approx(tight.objective, rel=1e-8, abs=1e-8)
    assert _kkt(prob, res) <= 1e-7
    assert R.check(res.x, tol=1e-6).ok


@pytest.mark.parametrize(("n", "noise"), [(12, 0.05), (10, 0.3)])
def test_projection_matches_the_admm(relaxations, n, noise):
    R = relaxations(unit_ball, n)
    prob = compile_projection(R, 3, _noisy_tensor(R, 3, seed=n, noise=noise))
    a = solve(prob, solver="admm", tol=1e-7)
    b = solve(prob, solver="ssnal", tol=1e-7)
    assert a.converged and b.converged
    ro = R.readout(3)
    np.testing.assert_allclose(ro(b.x), ro(a.x), atol=2e-5)
    assert b.objective == pytest.approx(a.objective, rel=1e-6, abs=1e-7)
    assert _kkt(prob, b) <= 1e-6


@pytest.mark.parametrize("system", [unit_ball, boolean_cube])
def test_linear_costs_support_values_match_clarabel(relaxations, system):
    """P = 0 (support functions): the Newton matrix is A' S J A + eps I; values agree with Clarabel."""
    R = relaxations(system, 5)
    prob = compile_support(R, 3, np.random.default_rng(7).standard_normal((5, 5, 5)))
    ref = solve(prob, solver="clarabel", tol=1e-9, on_fail="return")
    assert max(ref.primal_residual, ref.dual_residual, ref.duality_gap) < 1e-8
    res = solve(prob, solver="ssnal", tol=1e-8)
    assert res.converged and res.objective == pytest.approx(ref.objective, rel=1e-7)
    assert _kkt(prob, res) <= 1e-7


def test_through_the_set_api(relaxations):
    R = relaxations(unit_ball, 6)
    Y = _noisy_tensor(R, 3, seed=5, noise=0.2)
    P_admm = PseudoMomentSet(R, 3, solver="admm", tol=1e-9).project(Y)
    P, info = PseudoMomentSet(R, 3, solver="ssnal", tol=1e-9).project(Y, return_info=True)
    assert info.converged and info.extra["relaxation_check"]
    np.testing.assert_allclose(P, P_admm, atol=1e-6)


def test_caps_and_limits_are_never_reported_as_solved(relaxations):
    R = relaxations(unit_ball, 5)
    prob = compile_projection(R, 3, _noisy_tensor(R, 3, seed=11, noise=0.3))
    with pytest.raises(ProjectionError) as err:
        solve(prob, solver="ssnal", tol=1e-13, max_iter=1, admm_tol=1e-2)
    assert err.value.info["status"] == "max_iter" and err.value.info["converged"] is False
    res = solve(prob, solver="ssnal", tol=1e-13, max_outer=1, admm_tol=1e-2, on_fail="return")
    assert res.status == "max_iter" and not res.converged
    assert cone_violation(res.s, prob.cones) < 1e-9 and cone_violation(res.y_dual, prob.cones, dual=True) < 1e-9
    res = solve(prob, solver="ssnal", tol=1e-12, time_limit=1e-9, on_fail="return")
    assert res.status == "time_limit" and not res.converged
    # phase one capped, Newton phase capped: the reported iterations count both
    res = solve(prob, solver="ssnal", tol=1e-13, max_iter=2, admm_tol=1e-3, admm_max_iter=5, on_fail="return")
    assert not res.converged and res.iterations <= 5 + 2


def test_infeasible_problem_is_not_solved():
    # x >= 1 and x <= 0
    prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([0.0]), sp.csc_matrix([[-1.0], [1.0]]),
                        np.array([-1.0, 0.0]), Cones(nonneg=2))
    res = solve(prob, solver="ssnal", tol=1e-8, max_iter=50, admm_max_iter=200, max_outer=20, on_fail="return")
    assert not res.converged and res.status != "solved"


def test_settings_structure_and_memory_are_checked_before_work():
    d = 4
    C = np.random.default_rng(14).standard_normal((d, d))
    m = d * (d + 1) // 2
    prob = ConicProblem(2 * sp.identity(m, format="csc"), -2 * svec(C), -sp.identity(m, format="csc"),
                        np.zeros(m), Cones(psd=(d,)), offset=float(np.sum(C * C)))
    res = solve(prob, solver="ssnal", tol=1e-10, admm_tol=1e-1)        # nearest PSD matrix
    lam, V = np.linalg.eigh((C + C.T) / 2)
    np.testing.assert_allclose(smat(res.x, d), (V * np.maximum(lam, 0)) @ V.T, atol=1e-8)
    with pytest.raises(UnknownOptionError):
        solve(prob, solver="ssnal", newton_steps=3)
    for bad in ({"sigma_factor": 0.5}, {"cg_rtol": 2.0}, {"max_outer": 0}, {"alpha": 2.5}):
        with pytest.raises(InvalidParameterError):
            solve(prob, solver="ssnal", **bad)
    with pytest.raises(ResourceLimitError):
        ConicSolver(prob, "ssnal", memory_limit=100)
    soc = ConicProblem(sp.identity(3, format="csc"), np.zeros(3), -sp.identity(3, format="csc"), np.zeros(3),
                       Cones(soc=(3,)))
    with pytest.raises(SolverNotAvailableError):
        SsnalBackend(soc)

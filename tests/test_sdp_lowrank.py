"""The low-rank support backend and its certified bounds (sosproj.sdp.backends.lowrank, support_bounds)."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.errors import InvalidInputError, InvalidParameterError, ProjectionError, ResourceLimitError
from sosproj.poly import MomentRelaxation, boolean_cube, unit_ball
from sosproj.sdp import compile_support, solve
from sosproj.sdp import support_bounds as sb
from sosproj.sdp.backends import lowrank
from sosproj.sdp.cones import PSDProjector
from sosproj.sdp.lowrank_support import AUTO_LOWRANK_MIN_ORDER, TensorRounding, support_route
from sosproj.sdp.support_bounds import (
    SupportCertifier,
    ball_interior_moments,
    lambda_min_lower,
    moment_trace_bound,
)
from sosproj.sets import PseudoMomentSet


def _setup(n: int, seed: int = 0, planted: float = 0.0):
    rng = np.random.default_rng(seed)
    R = MomentRelaxation(unit_ball(n), 4)
    W = rng.standard_normal((n, n, n))
    if planted:
        v = rng.standard_normal(n)
        v /= np.linalg.norm(v)
        W = W + planted * np.einsum("i,j,k->ijk", v, v, v)
    return R, W


def _power_points(W: np.ndarray, starts: int, rng: np.random.Generator) -> list[np.ndarray]:
    T = sum(np.transpose(W, p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6
    pts = []
    for _ in range(starts):
        x = rng.standard_normal(W.shape[0])
        x /= np.linalg.norm(x)
        for _ in range(50):
            g = np.einsum("ijk,j,k->i", T, x, x)
            x = g / np.linalg.norm(g)
        pts.append(x)
    return pts


@pytest.mark.parametrize("n", [4, 8])
def test_lowrank_agrees_with_admm_scs_and_clarabel(n):
    R, W = _setup(n, seed=n)
    S = PseudoMomentSet(R, 3)
    ref = S.support(W, solver="clarabel", tol=1e-10)
    vals = {s: S.support(W, solver=s, tol=1e-9) for s in ("lowrank", "admm", "scs")}
    for name, res in vals.items():
        assert res.info["converged"], name
        assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value), name
    low = vals["lowrank"].info
    assert low["solver"] == "lowrank"
    # the certified interval contains the reference optimum and is narrow
    assert low["lower_bound"] <= ref.value + 1e-9 <= low["upper_bound"] + 2e-9
    assert low["certified_relative_gap"] <= 1e-8


def test_certified_bound_dominates_feasible_points_even_unconverged():
    n = 6
    R, W = _setup(n, seed=11)
    prob = compile_support(R, 3, W)
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rng = np.random.default_rng(5)
    # feasible points: moments of atomic measures in the ball, power-method points (Dirac moments)
    measures = [R.moments_of(rng.standard_normal((4, n)) / np.sqrt(n) * rng.uniform(0.2, 1.0))
                for _ in range(5)]
    measures += [R.moments_of(x[None, :]) for x in _power_points(W, 5, rng)]
    for max_iter in (3, 20, 2000):
        res = solve(prob, solver="admm", tol=1e-9, max_iter=max_iter, on_fail="return")
        for noise in (0.0, 1e-3):
            y = res.y_dual + noise * rng.standard_normal(res.y_dual.shape)
            b = cert.bounds(prob.q, res.x, y)
            upper_support = -b["lower"]
            for ym in measures:
                assert float(-(prob.q @ ym)) <= upper_support + 1e-12
            # the repaired primal point is feasible: its value never exceeds the certified bound
            assert -b["upper"] <= upper_support + 1e-12
            assert R.check(ym, tol=1e-9).ok


def test_repaired_primal_point_is_feasible():
    n = 5
    R, W = _setup(n, seed=2)
    prob = compile_support(R, 3, W)
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    res = solve(prob, solver="admm", tol=1e-4, on_fail="return")
    x = res.x.copy()
    x[0] = 1.0
    out = cert.upper(prob.q, x)
    t = out["mix"]
    xt = (1 - t) * x + t * ball_interior_moments(R)
    chk = R.check(xt, tol=1e-12)
    assert chk.ok and min(chk.min_eigenvalues.values()) >= -1e-12
    assert out["upper"] == pytest.approx(float(prob.q @ xt), abs=1e-12)


def test_interior_point_and_trace_bound():
    for n, degree in ((3, 4), (4, 6)):
        R = MomentRelaxation(unit_ball(n), degree)
        y = ball_interior_moments(R)
        chk = R.check(y, tol=0.0)
        assert chk.ok and min(chk.min_eigenvalues.values()) > 1e-6
        # Monte-Carlo moments of the same measure (|x|^2 uniform, direction uniform)
        rng = np.random.default_rng(0)
        d = rng.standard_normal((200_000, n))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        pts = d * np.sqrt(rng.uniform(size=(200_000, 1)))
        assert np.allclose(R.moments_of(pts), y, atol=5e-3)
        # trace bound: the trace of the moment matrix never exceeds degree/2 + 1 (max attained
        # on the unit sphere by a Dirac measure at a coordinate vector)
        blk = R.psd_blocks[0]
        e = np.zeros(n)
        e[0] = 1.0
        tr = np.trace(blk.matrix(R.moments_of(e[None, :])))
        assert tr <= moment_trace_bound(R) + 1e-12
        assert moment_trace_bound(R) == degree // 2 + 1


def test_trace_bound_refused_off_the_unit_ball():
    R = MomentRelaxation(boolean_cube(3), 4)
    with pytest.raises(InvalidInputError):
        moment_trace_bound(R)
    with pytest.raises(InvalidParameterError, match="unit-ball"):
        PseudoMomentSet(R, 3).support(np.ones((3, 3, 3)), solver="lowrank")


def test_lambda_min_lower_dense_and_cholesky_paths(monkeypatch):
    rng = np.random.default_rng(1)
    for d in (5, 40):
        A = rng.standard_normal((d, d))
        M = A @ A.T - 0.3 * d * np.eye(d)
        true = float(np.linalg.eigvalsh(M)[0])
        lo = lambda_min_lower(M)
        assert lo <= true and lo >= true - 1e-6 * (1 + abs(true))
        monkeypatch.setattr(sb, "DENSE_EIG_MAX", 10)
        lo2 = sb.lambda_min_lower(M)
        assert lo2 <= true and lo2 >= true - 1e-4 * (1 + abs(true))
        monkeypatch.setattr(sb, "DENSE_EIG_MAX", 1500)
    P = np.diag([1.0, 2.0, 3.0])
    assert lambda_min_lower(P) <= 1.0


def test_partial_projector_matches_full_projection():
    rng = np.random.default_rng(3)
    d = 120
    full = PSDProjector(d)
    part = lowrank._PartialPSDProjector(d)
    U = rng.standard_normal((d, 2))
    N = rng.standard_normal((d, d))
    from sosproj.sdp.conic import svec

    for step in range(12):   # slowly varying low-rank-plus-negative matrices: Krylov path
        M = (U @ U.T) * (1 + 0.01 * step) - (N @ N.T) / d - 0.5 * np.eye(d)
        v = svec(M)
        part.rtol = 1e-7
        scale = float(np.linalg.norm(M))
        assert np.allclose(part(v), full(v), atol=1e-6 * scale)
    assert part.krylov_accepted > 0
    assert part.n_pos == 2


def test_iteration_cap_time_limit_and_failure_policy():
    n = 6
    R, W = _setup(n, seed=4)
    S_cap = PseudoMomentSet(MomentRelaxation(unit_ball(n), 4), 3)
    S_cap.max_iter = 3
    r = S_cap.support(W, solver="lowrank", tol=1e-9, on_fail="return")
    assert r.info["status"] in ("max_iter", "inaccurate") and not r.info["converged"]
    assert r.info["upper_bound"] >= r.info["lower_bound"]       # still a valid (loose) certificate
    with pytest.raises(ProjectionError):
        S_cap.support(W, solver="lowrank", tol=1e-9)
    S_time = PseudoMomentSet(MomentRelaxation(unit_ball(n), 4), 3)
    S_time.time_limit = 1e-9
    r = S_time.support(W, solver="lowrank", tol=1e-12, on_fail="return")
    assert r.info["status"] in ("time_limit", "inaccurate") and not r.info["converged"]


def test_zero_direction_and_memory_refusal():
    n = 5
    R = MomentRelaxation(unit_ball(n), 4)
    r = PseudoMomentSet(R, 3).support(np.zeros((n, n, n)), solver="lowrank", tol=1e-8)
    assert r.info["converged"] and abs(r.value) <= 1e-7 and r.info["upper_bound"] >= -1e-9
    with pytest.raises(ResourceLimitError):
        compile_support(R, 3, np.ones((n, n, n)), solver="lowrank", limit_bytes=1000)


def test_auto_routes_large_unit_ball_supports_to_lowrank():
    small = MomentRelaxation(unit_ball(3), 4)
    assert support_route(small, "auto", 1e-7)[0] == "auto"
    n = 27                                             # moment matrix of order 406
    big = MomentRelaxation(unit_ball(n), 4)
    assert big.psd_blocks[0].order >= AUTO_LOWRANK_MIN_ORDER
    name, settings = support_route(big, "lowrank", 1e-7, 3)
    assert name == "lowrank" and settings["trace_bound"] == 3.0 and callable(settings["rounding"])
    # auto: tensor supports go to the rank-one certificate backend there, other linear costs to lowrank
    assert support_route(big, "auto", 1e-7, 3)[0] == "rankone"
    assert support_route(big, "auto", 1e-7)[0] == "lowrank"
    cube = MomentRelaxation(boolean_cube(4), 4)
    assert support_route(cube, "auto", 1e-7)[0] == "auto"


def test_tensor_rounding_recovers_tensor_and_feasible_value():
    n = 6
    R, W = _setup(n, seed=8, planted=10.0)
    prob = compile_support(R, 3, W)
    rnd = TensorRounding(R, 3)
    T = rnd.tensor(prob.q)
    sym = sum(np.transpose(W, p) for p in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]) / 6
    assert np.allclose(T, sym)
    val, z = rnd.point(prob.q)
    assert abs(np.linalg.norm(z) - 1) < 1e-12
    assert val == pytest.approx(float(np.einsum("ijk,i,j,k->", W, z, z, z)), rel=1e-12)
    assert rnd(prob.q, R.moments_of(z[None, :])) == pytest.approx(-val, rel=1e-9)


def test_infeasible_and_degenerate_conic_inputs_are_not_solved():
    import scipy.sparse as sp

    from sosproj.sdp.conic import Cones, ConicProblem

    # x >= 1 and x <= 0, with a PSD block of order 2 on (x, x, x): infeasible; no certificate here
    A = sp.csc_matrix(np.array([[-1.0], [1.0], [-1.0], [-np.sqrt(2.0)], [-1.0]]))
    prob = ConicProblem(None, np.array([1.0]), A, np.array([-1.0, 0.0, 0.0, 0.0, 0.0]),
                        Cones(nonneg=2, psd=(2,)))
    res = solve(prob, solver="lowrank", tol=1e-8, max_iter=300, on_fail="return")
    assert res.status in ("max_iter", "error") and not res.converged
    # a certifier refuses structures it cannot certify, before any work
    with pytest.raises(InvalidInputError):
        SupportCertifier(prob, trace_bound=float("inf"))
    with pytest.raises(InvalidInputError):
        SupportCertifier(prob.with_data(), trace_bound=-1.0)

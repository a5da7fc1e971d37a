"""The rank-one certificate backend (sosproj.sdp.backends.rankone, sosproj.sdp.rankone_dual)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from rankone_cases import WrongCandidate, assert_planted_certified_tight, slow_douglas_rachford, tensor_case

from sosproj.errors import InvalidParameterError, ProjectionError, ResourceLimitError, SolverNotAvailableError
from sosproj.poly import MomentRelaxation, boolean_cube, unit_ball
from sosproj.sdp import compile_support, solve
from sosproj.sdp.backends.rankone import RankOneBackend
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.rankone_dual import DualFeasibility, NegativeEigenpairs
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound
from sosproj.sets import PseudoMomentSet

SYM = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


@pytest.mark.parametrize("n", [4, 8])
def test_rankone_agrees_with_admm_scs_and_clarabel(n):
    R, W, _ = tensor_case(n, seed=n)
    S = PseudoMomentSet(R, 3)
    ref = S.support(W, solver="clarabel", tol=1e-10)
    res = S.support(W, solver="rankone", tol=1e-8)
    assert res.info["converged"] and res.info["solver"] == "rankone"
    assert "fallback" not in res.info                       # certified by the dual iteration itself
    for other in ("admm", "scs"):
        assert abs(S.support(W, solver=other, tol=1e-9).value - res.value) <= 1e-6 * abs(ref.value), other
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    # the certified interval contains the reference optimum and is as narrow as asked
    assert res.info["lower_bound"] <= ref.value + 1e-9 <= res.info["upper_bound"] + 2e-9
    assert res.info["certified_relative_gap"] <= 1e-7
    # the reported point is the Dirac moment vector of a point of the ball: exactly feasible
    y = res.info["pseudo_moments"]
    assert R.check(y, tol=1e-9).ok


def test_certified_bound_dominates_power_method_points_and_measures():
    n = 7
    R, W, _ = tensor_case(n, seed=3)
    res = PseudoMomentSet(R, 3).support(W, solver="rankone", tol=1e-7)
    upper = res.info["upper_bound"]
    rng = np.random.default_rng(1)
    T = sum(np.transpose(W, p) for p in SYM) / 6
    for _ in range(30):                    # power-method points (plain HOPM) on the sphere
        x = rng.standard_normal(n)
        x /= np.linalg.norm(x)
        for _ in range(60):
            g = np.einsum("ijk,j,k->i", T, x, x)
            x = g / np.linalg.norm(g)
        assert float(np.einsum("ijk,i,j,k->", W, x, x, x)) <= upper + 1e-12
    prob = compile_support(R, 3, W)
    for _ in range(5):                     # moments of atomic measures inside the ball
        pts = rng.standard_normal((3, n))
        pts /= np.maximum(1.0, np.linalg.norm(pts, axis=1))[:, None]
        assert float(-(prob.q @ R.moments_of(pts))) <= upper + 1e-12


def test_planted_tensor_is_certified_tight_at_the_planted_direction():
    assert_planted_certified_tight("rankone")


def test_no_certificate_is_never_solved_and_the_fallback_recovers():
    n = 5
    R, W, _ = tensor_case(n, seed=7)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone", 1e-8, 3)
    ref = solve(prob, solver="clarabel", tol=1e-10)
    settings["rounding"] = WrongCandidate(R, 3)
    alone = solve(prob, solver="rankone", tol=1e-8, max_iter=200, on_fail="return",
                  **{**settings, "fallback": None})
    assert not alone.converged and alone.status == "max_iter"
    # its bounds stay valid: the dual bound above the optimum, the point's value below
    assert -alone.info["cert_lower"] >= -ref.objective - 1e-9
    assert -alone.info["cert_upper"] <= -ref.objective + 1e-9
    helped = solve(prob, solver="rankone", tol=1e-8, on_fail="return", **settings)
    assert helped.converged and helped.info["fallback"] == "lowrank"
    assert helped.info["rankone_status"] == "max_iter" or helped.info["rankone_status"] == "certified"
    assert abs(helped.objective - ref.objective) <= 1e-6 * abs(ref.objective)


def test_even_order_with_the_origin_as_maximizer():
    n = 4
    R = MomentRelaxation(unit_ball(n), 4)
    S = PseudoMomentSet(R, 2)
    neg = -np.eye(n) - 0.1 * np.ones((n, n))
    res = S.support(neg, solver="rankone", tol=1e-8)
    assert res.info["converged"] and abs(res.value) <= 1e-7          # max over the ball at x = 0
    W = np.diag([2.0, -1.0, 0.5, 0.0])
    assert S.support(W, solver="rankone", tol=1e-8).value == pytest.approx(2.0, rel=1e-7)


def test_caps_time_limits_and_refusals():
    n = 6
    R, W, _ = tensor_case(n, seed=4)
    S = PseudoMomentSet(MomentRelaxation(unit_ball(n), 4), 3)
    S.time_limit = 1e-9
    r = S.support(W, solver="rankone", tol=1e-12, on_fail="return")
    assert not r.info["converged"] and r.info["status"] in ("time_limit", "max_iter", "inaccurate")
    assert r.info["upper_bound"] >= r.info["lower_bound"] - 1e-12
    with pytest.raises(ProjectionError):
        S.support(W, solver="rankone", tol=1e-12)
    # no proven trace bound off the ball; no structure without a rounding; memory refused up front
    with pytest.raises(InvalidParameterError):
        support_route(MomentRelaxation(boolean_cube(4), 4), "rankone", 1e-7, 3)
    prob = compile_support(R, 3, W)
    with pytest.raises(SolverNotAvailableError):
        RankOneBackend(prob, tol=1e-7)
    with pytest.raises(ResourceLimitError):
        compile_support(R, 3, W, solver="rankone", limit_bytes=1000)
    _, settings = support_route(R, "rankone", 1e-7, 3)
    with pytest.raises(InvalidParameterError):
        RankOneBackend(prob, tol=1e-7, **{**settings, "fallback": "scs"})


def test_auto_route_prefers_rankone_only_where_measured():
    from sosproj.sdp import lowrank_support as ls

    small = MomentRelaxation(unit_ball(3), 4)
    assert support_route(small, "auto", 1e-7, 3)[0] == "auto"
    for n in (20, 30):
        big = MomentRelaxation(unit_ball(n), 4)
        order = big.psd_blocks[0].order
        name, settings = support_route(big, "auto", 1e-7, 3)
        if order >= ls.AUTO_RANKONE_NEWTON_MIN_ORDER:
            assert name == "rankone_newton" and settings["fallback"] == "lowrank"
        elif order >= ls.AUTO_RANKONE_MIN_ORDER:
            assert name == "rankone" and "fallback" not in settings
        else:
            assert name == "lowrank"
        assert support_route(big, "auto", 1e-7, None)[0] == ("lowrank" if order >= ls.AUTO_LOWRANK_MIN_ORDER
                                                             else "auto")       # no tensor order: no candidate
    assert support_route(big, "rankone_newton", 1e-7, 3)[1].get("fallback") is None    # explicit: no fallback


def test_negative_eigenpairs_match_eigh_along_a_sequence():
    rng = np.random.default_rng(0)
    d = 60
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([[-3.0, -1.0, -0.5], rng.uniform(0.5, 5.0, d - 3)])
    ne = NegativeEigenpairs(d, resync=1000)
    for step in range(8):
        E = rng.standard_normal((d, d)) * 1e-3 * (step > 0)
        M = (Q * lam) @ Q.T + (E + E.T)
        got, V = ne(M, 1e-9 if step > 2 else 1e-3)
        ref = np.linalg.eigvalsh(M)
        assert got.size == int(np.sum(ref < 0))
        assert np.allclose(np.sort(got), ref[ref < 0], atol=1e-6 if step > 2 else 1e-2)
        assert np.allclose(M @ V, V * got, atol=1e-5 if step > 2 else 0.1)
    assert ne.krylov_accepted > 0
    assert ne(np.eye(4) if False else (Q * np.abs(lam)) @ Q.T, 1e-9)[0].size == 0


def test_affine_projection_is_orthogonal_and_exact():
    n = 3
    R, W, _ = tensor_case(n, seed=1)
    prob = compile_support(R, 3, W)
    feas = DualFeasibility(prob)
    rng = np.random.default_rng(2)
    N = feas.N
    Z = rng.standard_normal((N, N))
    Z = Z + Z.T
    yr = rng.standard_normal(len(feas.rest_rows))
    rhs = feas.rhs(prob.q, 1.7)
    aZ, ar = feas.affine(Z, yr, rhs)
    y = feas.dual_vector(1.7, aZ, ar)
    A = sp.csr_matrix(prob.A)
    assert np.allclose(prob.q + A.T @ y, 0.0, atol=1e-10)       # dual equality holds exactly
    assert float(-(prob.b @ y)) == pytest.approx(-1.7)
    bZ, br = feas.affine(aZ, ar, rhs)                              # idempotent
    assert np.allclose(bZ, aZ) and np.allclose(br, ar)
    # orthogonal: the correction is orthogonal to every direction inside the affine set
    Z2 = rng.standard_normal((N, N))
    Z2 = Z2 + Z2.T
    cZ, cr = feas.affine(Z2, rng.standard_normal(len(feas.rest_rows)), rhs)
    inner = float(np.sum((Z - aZ) * (cZ - aZ)) + (yr - ar) @ (cr - ar))
    assert abs(inner) <= 1e-8 * (1 + np.linalg.norm(Z - aZ) * np.linalg.norm(cZ - aZ))


def test_douglas_rachford_does_not_start_a_step_that_would_end_past_the_deadline(monkeypatch):
    import time

    R, W, _ = tensor_case(3, seed=1)
    prob = compile_support(R, 3, W)
    feas = DualFeasibility(prob)
    affine = feas.affine

    def slow(*a):                       # every step takes at least 0.1 s
        time.sleep(0.1)
        return affine(*a)

    monkeypatch.setattr(feas, "affine", slow)
    t0 = time.perf_counter()
    run = feas.run(prob.q, 1.0, max_iter=100, deadline=t0 + 0.25)
    # two steps fit (about 0.2 s); a third would end near 0.3 s, past the deadline: not started (without
    # the forecast it runs and the solve returns after 0.3 s)
    assert run.status == "time_limit" and 1 <= run.iterations <= 2
    assert time.perf_counter() <= t0 + 0.28
    assert np.all(np.isfinite(run.y))


def test_rankone_certificate_is_recomputed_independently():
    n = 6
    R, W, _ = tensor_case(n, seed=9)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone", 1e-8, 3)
    res = solve(prob, solver="rankone", tol=1e-8, **settings)
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    b = cert.bounds(prob.q, res.x, res.y_dual, repair=False, point_value=float(prob.q @ res.x))
    assert b["relative_gap"] <= 1e-7
    assert b["lower"] == pytest.approx(res.info["cert_lower"], rel=1e-12)
    assert res.objective == pytest.approx(res.info["cert_upper"], rel=1e-12)   # objective of the feasible x


def test_large_order_lambda_min_gives_positive_bounds_to_interior_points(monkeypatch):
    from sosproj.sdp import support_bounds as sb

    rng = np.random.default_rng(4)
    d = 50
    A = rng.standard_normal((d, d))
    M = A @ A.T + 0.5 * np.eye(d)                     # positive definite
    true = float(np.linalg.eigvalsh(M)[0])
    monkeypatch.setattr(sb, "DENSE_EIG_MAX", 10)      # the Lanczos + Cholesky path
    lo = sb.lambda_min_lower(M)
    assert 0 < lo <= true and lo >= true * (1 - 1e-4)
    lo_neg = sb.lambda_min_lower(M - 2 * true * np.eye(d))
    assert lo_neg <= -true and lo_neg >= -true * (1 + 1e-4)
    # the unit-ball interior point is accepted as strictly feasible on that path too (n = 64 needs it)
    R = MomentRelaxation(unit_ball(6), 4)
    prob = compile_support(R, 3, np.ones((6, 6, 6)))
    cert = sb.SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    assert min(cert.interior_mu) > 0 and min(cert.interior_mu_unscaled) > 0


def test_linear_forms_and_pickling_after_a_solve():
    import pickle

    n = 5
    R = MomentRelaxation(unit_ball(n), 4)
    w = np.arange(1.0, n + 1.0)
    S1 = PseudoMomentSet(R, 1)
    assert S1.support(w, solver="rankone", tol=1e-8).value == pytest.approx(float(np.linalg.norm(w)), rel=1e-7)
    R3, W, _ = tensor_case(4, seed=2)
    S = PseudoMomentSet(R3, 3)
    first = S.support(W, solver="rankone", tol=1e-8)
    again = pickle.loads(pickle.dumps(S)).support(W, solver="rankone", tol=1e-8)
    assert again.info["converged"] and again.value == pytest.approx(first.value, rel=1e-9)


def test_rankone_fallback_refusal_is_reported_and_a_time_limited_run_keeps_its_status(monkeypatch):
    """``solver="rankone"``: a refused low-rank fallback (too large for the ADMM) is reported in
    ``info["fallback"]``, not raised; a run stopped by its time limit is not handed to the fallback."""

    R, W, _ = tensor_case(6, seed=4)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone", 1e-7, 3)
    handed = []

    def refused(self, *a):
        handed.append(1)
        raise SolverNotAvailableError("the ADMM backend couples 5151 rows (limit 4000); use solver='scs'")

    monkeypatch.setattr(RankOneBackend, "_fall_back", refused)
    capped = RankOneBackend(prob, tol=1e-12, max_iter=2, **{**settings, "fallback": "lowrank"}).solve()
    assert capped.status == "max_iter" and handed == [1] and capped.extra["fallback"].startswith("refused:")
    be = RankOneBackend(prob, tol=1e-12, time_limit=0.3, **{**settings, "fallback": "lowrank"})
    slow_douglas_rachford(monkeypatch, be.feas)          # every Douglas-Rachford step takes at least 50 ms
    raw = be.solve()
    assert raw.status == "time_limit" and handed == [1] and "fallback" not in raw.extra


def test_certifier_setup_checks_the_interior_by_cholesky_and_times_lazily(monkeypatch):
    """The certifier's set-up shows the interior point strictly feasible without a lambda_min bound (issue 15,
    session 29); the bounds (and ``lambda_min_seconds``, their wall time) come on first use, positive, and equal
    to the direct ones; a singular interior point is still refused at set-up."""
    import sosproj.sdp.support_bounds as sb
    from sosproj.errors import InvalidInputError

    R = MomentRelaxation(unit_ball(5), 4)
    prob = compile_support(R, 3, np.ones((5, 5, 5)))
    calls = []
    orig = sb.lambda_min_lower

    def counted(M, **kw):
        calls.append(M.shape[0])
        return orig(M, **kw)

    monkeypatch.setattr(sb, "lambda_min_lower", counted)
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    assert calls == []
    assert cert.lambda_min_seconds > 0 and len(calls) == len(prob.cones.psd)
    s = prob.b - prob.A @ ball_interior_moments(R)
    direct = [orig(sb._psd_block(s[sl], d)) for sl, d in cert.psd]
    assert cert.interior_mu_unscaled == direct and min(direct) > 0
    cert.lambda_min_seconds = 0.25                     # callers (tests) may set it
    assert cert.lambda_min_seconds == 0.25
    # no interior point: nothing to time
    assert SupportCertifier(prob, moment_trace_bound(R)).lambda_min_seconds == 0.0
    # a boundary point (a Dirac measure: rank-one moment matrix) is refused at set-up
    rounding = support_route(R, "rankone_newton", 1e-7, 3)[1]["rounding"]
    x = rounding.dirac(np.ones(5) / np.sqrt(5))
    with pytest.raises(InvalidInputError, match="strictly feasible|non-positive"):
        SupportCertifier(prob, moment_trace_bound(R), 0.5 * x + 0.5 * rounding.dirac(np.zeros(5)))

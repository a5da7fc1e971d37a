"""The rank-one + semismooth Newton support backend (sdp.backends.rankone_newton, sdp.partial_newton)."""

from __future__ import annotations

import numpy as np
import pytest
from rankone_cases import WrongCandidate, assert_planted_certified_tight, slow_douglas_rachford, tensor_case

from sosproj.errors import InvalidParameterError, ProjectionError, ResourceLimitError, SolverNotAvailableError
from sosproj.poly import MomentRelaxation, boolean_cube, unit_ball
from sosproj.sdp import compile_support, solve
from sosproj.sdp import partial_newton as pn
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
from sosproj.sdp.backends.ssnal import _PsdBlock
from sosproj.sdp.cones import svec
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.partial_newton import FAST_SVEC_MIN, PartialPsdBlock
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound
from sosproj.sets import PseudoMomentSet

SYM = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
SOLVER = "rankone_newton"

#: the partial path's limit in the tests of the switch between the partial and the full path (``limit8``): the
#: module's default, pinned so that a raised default (64 was measured in issue 15's session 35) keeps these small
#: tests on the switch
MAX_NEGATIVE = 8


@pytest.fixture
def limit8(monkeypatch):
    """``partial_newton.MAX_NEGATIVE`` (and the first decomposition's block hint) at 8, as before issue 15's session
    35: these tests exercise the switch to the full path at small orders, not the limit's value."""
    monkeypatch.setattr(pn, "MAX_NEGATIVE", MAX_NEGATIVE)
    monkeypatch.setattr(pn, "FIRST_NEGATIVE_HINT", MAX_NEGATIVE)


@pytest.mark.parametrize("k,d", [(0, 40), (1, 40), (3, 40), (MAX_NEGATIVE, 40), (MAX_NEGATIVE + 2, 40),
                                 (3, 131)])
def test_partial_block_matches_the_full_eigendecomposition(k, d, limit8):
    rng = np.random.default_rng(k)
    B = rng.standard_normal((d, d))
    W = B @ B.T / d + 0.1 * np.eye(d)
    if k:
        V = np.linalg.qr(rng.standard_normal((d, k)))[0]
        W = W - (V * rng.uniform(2.0, 6.0, k)) @ V.T
    assert int(np.sum(np.linalg.eigvalsh(W) < 0)) == k
    full, part = _PsdBlock(d, single=False), PartialPsdBlock(d)
    w = svec(W)
    (p1, m1), (p2, m2) = full.decompose(w), part.decompose(w)
    assert part.partial == (k <= MAX_NEGATIVE)
    assert np.allclose(p1, p2, atol=1e-10) and np.allclose(m1, m2, atol=1e-10)
    for _ in range(3):
        H = rng.standard_normal((d, d))
        h = svec(H + H.T)
        assert np.allclose(full.jacobian(h), part.jacobian(h), atol=1e-9)
    # the Jacobian is the derivative of the projection (finite differences, away from kinks)
    H = rng.standard_normal((d, d))
    h = svec(H + H.T)
    eps = 1e-6
    fd = (PartialPsdBlock(d).decompose(w + eps * h)[0] - PartialPsdBlock(d).decompose(w - eps * h)[0]) / (2 * eps)
    assert np.allclose(fd, part.jacobian(h), atol=1e-5)


@pytest.mark.parametrize("sticky", [True, False])
def test_full_decompositions_go_straight_to_eigh_and_back_to_the_partial_path(sticky, monkeypatch, limit8):
    # FULL_STICKY (issue 15, session 30): after a decomposition with > MAX_NEGATIVE negative eigenvalues the next one
    # is one full eigh (no filter, no exact partial decomposition); a full one with <= MAX_NEGATIVE hands back to the
    # partial path with its exact pairs, whose next decomposition warm-starts from them. Same numbers either way.
    monkeypatch.setattr(pn, "FULL_STICKY", sticky)
    d = 60
    rng = np.random.default_rng(11)
    B = rng.standard_normal((d, d))
    base = B @ B.T / d + 0.1 * np.eye(d)
    V = np.linalg.qr(rng.standard_normal((d, MAX_NEGATIVE + 6)))[0]
    part = PartialPsdBlock(d)
    for step, k in enumerate([MAX_NEGATIVE + 6, MAX_NEGATIVE + 3, 3, 2]):
        W = base - (V[:, :k] * np.linspace(2.0, 6.0, k)) @ V[:, :k].T + 1e-3 * step * np.eye(d)
        assert int(np.sum(np.linalg.eigvalsh(W) < 0)) == k
        exact_before = part.neg.exact_calls
        full = _PsdBlock(d, single=False)
        (p1, m1), (p2, m2) = full.decompose(svec(W)), part.decompose(svec(W))
        assert part.partial == (k <= MAX_NEGATIVE)
        assert np.allclose(p1, p2, atol=1e-10) and np.allclose(m1, m2, atol=1e-10)
        if step == 0:                             # cold: one syevr block, then eigh (before: the block doubled)
            assert part.neg.exact_calls == (0 if sticky else 1) and part.full_calls == 1
        if sticky and step in (1, 2):             # after a full one: no partial decomposition was tried
            assert part.neg.exact_calls == exact_before
        if not sticky and step in (1, 2):
            assert part.neg.exact_calls > exact_before
        for _ in range(2):
            H = rng.standard_normal((d, d))
            h = svec(H + H.T)
            assert np.allclose(full.jacobian(h), part.jacobian(h), atol=1e-9)
    assert part.full_calls == 2 and part.partial_calls == 2


@pytest.mark.parametrize("k", [MAX_NEGATIVE + 12, FAST_SVEC_MIN // 2 + 40])
def test_full_path_syr2k_product_matches_the_parent(k, monkeypatch, limit8):
    # from order FAST_SVEC_MIN on, the full path's product by one syr2k on the lower triangle (issue 15, session 30):
    # the same numbers as _PsdBlock.jacobian (float64), with the negative side smaller (k = 20) or the positive one
    d = FAST_SVEC_MIN + 31
    rng = np.random.default_rng(k)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    lam = np.concatenate([-rng.uniform(0.1, 3.0, k), rng.uniform(0.1, 3.0, d - k)])
    w = svec((Q * lam) @ Q.T)
    part, full = PartialPsdBlock(d), _PsdBlock(d, single=False)
    (p1, _), (p2, _) = part.decompose(w), full.decompose(w)
    assert not part.partial and part.npos == d - k and np.allclose(p1, p2, atol=1e-10)
    X = rng.standard_normal((d, d))
    h = svec(X + X.T)
    ref = full.jacobian(h)
    np.testing.assert_allclose(part.jacobian(h), ref, rtol=0, atol=1e-11 * np.max(np.abs(ref)))
    monkeypatch.setattr(pn, "FULL_SYR2K", False)
    np.testing.assert_allclose(part.jacobian(h), ref, rtol=0, atol=1e-11 * np.max(np.abs(ref)))   # the parent's


def _face(d, k, seed, dominant=(-50.0, -20.0, -5.0)):
    """A symmetric matrix with ``k`` negative eigenvalues (a few dominant ones, the rest in [-0.2, -1e-3], as the
    ``n = 64`` faces after an early hand-over), its eigenvectors and eigenvalues."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    neg = np.concatenate([dominant, -rng.uniform(1e-3, 0.2, k - len(dominant))])
    lam = np.concatenate([rng.permutation(neg), rng.uniform(0.5, 3.0, d - k)])
    return (Q * lam) @ Q.T, Q, lam, rng


@pytest.mark.parametrize("d", [60, FAST_SVEC_MIN + 31])
def test_partial_path_with_many_negatives_matches_the_full_path(d, monkeypatch):
    # issue 15, session 35: a face with 12 negative eigenvalues (more than the old MAX_NEGATIVE = 8) on the partial
    # path; with every resolvent (PARTIAL_RESOLVENTS = None) its projection and Jacobian are the full
    # eigendecomposition's, on the gather path (d = 60) and the dense gemm + syr2k product (d >= FAST_SVEC_MIN)
    monkeypatch.setattr(pn, "MAX_NEGATIVE", 24)
    monkeypatch.setattr(pn, "PARTIAL_RESOLVENTS", None)
    W, _, _, rng = _face(d, 12, 35)
    w = svec(W)
    full, part = _PsdBlock(d, single=False), PartialPsdBlock(d)
    (p1, m1), (p2, m2) = full.decompose(w), part.decompose(w)
    assert part.partial and part.lam_n.size == 12 and part.full_calls == 0
    assert np.allclose(p1, p2, atol=1e-10) and np.allclose(m1, m2, atol=1e-10)
    for _ in range(2):
        X = rng.standard_normal((d, d))
        h = svec(X + X.T)
        ref = full.jacobian(h)
        np.testing.assert_allclose(part.jacobian(h), ref, rtol=0, atol=1e-10 * np.max(np.abs(ref)))
    if d >= FAST_SVEC_MIN:                            # the dense product is the packed one to rounding
        J = part.jacobian(h)
        monkeypatch.setattr(pn, "DENSE_JACOBIAN_MIN", 10 ** 6)
        np.testing.assert_allclose(part.jacobian(h), J, rtol=0, atol=1e-12 * np.max(np.abs(J)))


@pytest.mark.parametrize("d", [60, FAST_SVEC_MIN + 31])
def test_partial_path_drops_the_smallest_resolvents_as_the_jacobian_at_the_zeroed_point(d, monkeypatch):
    # PARTIAL_RESOLVENTS / WIDE_RESOLVENTS (issue 15, session 35): with 12 negative pairs (more than PARTIAL_RESOLVENTS)
    # and resolvents for the WIDE_RESOLVENTS = 8 most negative only,
    # the projection is still exact (every pair), and the Jacobian is the full path's at W' (the 4 smallest negative
    # eigenvalues replaced by -1e-12: the limit element at the zeroed point), not the one at W
    monkeypatch.setattr(pn, "MAX_NEGATIVE", 24)
    monkeypatch.setattr(pn, "PARTIAL_RESOLVENTS", 8)
    monkeypatch.setattr(pn, "WIDE_RESOLVENTS", 8)
    W, Q, lam, rng = _face(d, 12, 36)
    w = svec(W)
    full, part = _PsdBlock(d, single=False), PartialPsdBlock(d)
    (p1, m1), (p2, m2) = full.decompose(w), part.decompose(w)
    assert part.partial and part.lam_n.size == 12 and len(part._resolvents()) == 8
    assert np.allclose(p1, p2, atol=1e-10) and np.allclose(m1, m2, atol=1e-10)
    neg = np.flatnonzero(lam < 0)
    dropped = neg[np.argsort(lam[neg])[8:]]
    assert np.all(lam[dropped] > -0.2)                # the four smallest in magnitude
    lam_z = lam.copy()
    lam_z[dropped] = -1e-12
    at_zeroed = _PsdBlock(d, single=False)
    at_zeroed.decompose(svec((Q * lam_z) @ Q.T))
    X = rng.standard_normal((d, d))
    h = svec(X + X.T)
    J, ref_w, ref_z = part.jacobian(h), full.jacobian(h), at_zeroed.jacobian(h)
    scale = np.max(np.abs(ref_w))
    np.testing.assert_allclose(J, ref_z, rtol=0, atol=1e-9 * scale)
    assert np.max(np.abs(J - ref_w)) > 1e-4 * scale  # a different element: the dropped cross terms are not zero


def test_cold_decomposition_of_a_wide_face_stays_partial_with_the_wide_limit(monkeypatch):
    # the wide-face settings of issue 15's session 35 (MAX_NEGATIVE = FIRST_NEGATIVE_HINT = 64, WIDE_RESOLVENTS = 1;
    # opt-in): a cold face with 40 negative eigenvalues (one dominant, as n = 64's 0.1 hand-over with 45-46) takes one
    # exact partial decomposition (no full eigh), projects exactly, and its Jacobian is the full path's at the
    # zeroed point
    monkeypatch.setattr(pn, "MAX_NEGATIVE", 64)
    monkeypatch.setattr(pn, "FIRST_NEGATIVE_HINT", 64)
    assert pn.WIDE_RESOLVENTS == 1
    d, k = 300, 40
    W, Q, lam, rng = _face(d, k, 37, dominant=(-500.0,))
    part, full = PartialPsdBlock(d), _PsdBlock(d, single=False)
    (p1, m1), (p2, m2) = full.decompose(svec(W)), part.decompose(svec(W))
    assert part.partial and part.lam_n.size == k and part.full_calls == 0 and part.neg.exact_calls == 1
    assert np.allclose(p1, p2, atol=1e-10) and np.allclose(m1, m2, atol=1e-10)
    assert len(part._resolvents()) == 1
    lam_z = np.where((lam < 0) & (lam > -1.0), -1e-12, lam)
    at_zeroed = _PsdBlock(d, single=False)
    at_zeroed.decompose(svec((Q * lam_z) @ Q.T))
    X = rng.standard_normal((d, d))
    h = svec(X + X.T)
    ref = at_zeroed.jacobian(h)
    np.testing.assert_allclose(part.jacobian(h), ref, rtol=0, atol=1e-9 * np.max(np.abs(ref)))


def test_cold_decomposition_on_a_small_face_is_bitwise_the_old_path(monkeypatch):
    # with few negative eigenvalues (n = 64's face) the cold path runs the filter's same exact call, counts it the
    # same way, and every later (warm) decomposition is bitwise the one of FULL_STICKY = False
    rng = np.random.default_rng(0)
    d = 300
    B = rng.standard_normal((d, d))
    base = B @ B.T / d
    V = np.linalg.qr(rng.standard_normal((d, 3)))[0]
    outs = {}
    for sticky in (False, True):
        monkeypatch.setattr(pn, "FULL_STICKY", sticky)
        part, res = PartialPsdBlock(d), []
        for t in range(6):
            W = base - (V * np.array([50.0, 0.3 + 0.01 * t, 0.1])) @ V.T + 1e-3 * t * np.outer(V[:, 0], V[:, 1])
            res += [part.decompose(svec(0.5 * (W + W.T)))[0], np.array([part.neg.calls, part.neg.exact_calls])]
        assert part.partial_calls == 6
        outs[sticky] = res
    assert all(np.array_equal(a, b) for a, b in zip(outs[False], outs[True]))


def test_a_negative_eigenvalue_missed_by_the_warm_block_is_caught_and_projected():
    # diagonal W: the warm block spans e_0..e_6, its Krylov space stays there and its next Ritz value is
    # positive, so the block step alone accepts one negative eigenvalue and misses the one at e_{d-1}
    d = 40
    diag = np.full(d, 5.0)
    diag[0], diag[-1] = -1.0, -0.5
    W = np.diag(diag)
    part = PartialPsdBlock(d)
    part.neg.X = np.eye(d)[:, :7]
    lam, _ = part.neg._krylov(W, 1e-10)
    assert lam.tolist() == [-1.0]                    # what the block step alone returns
    part.neg.X = np.eye(d)[:, :7]
    p2, m2 = part.decompose(svec(W))
    p1, m1 = _PsdBlock(d, single=False).decompose(svec(W))
    assert part.missed_calls == 1 and part.partial and part.lam_n.size == 2
    assert np.allclose(p1, p2, atol=1e-12) and np.allclose(m1, m2, atol=1e-12)
    # a complete warm block is accepted as it is, without the exact decomposition
    part = PartialPsdBlock(d)
    part.neg.X = np.eye(d)[:, [0, d - 1, 1, 2, 3, 4, 5]]
    p3, _ = part.decompose(svec(W))
    assert part.missed_calls == 0 and part.neg.exact_calls == 0 and part.lam_n.size == 2
    assert np.allclose(p1, p3, atol=1e-12)


@pytest.mark.parametrize("d", [131, FAST_SVEC_MIN + 31])
def test_fast_svec_conversions_match_the_gather(d):
    # 131: the gather map (below FAST_SVEC_MIN); FAST_SVEC_MIN + 31: contiguous rows, tiles and a remainder
    rng = np.random.default_rng(5)
    H = rng.standard_normal((d, d))
    H = H + H.T
    part, ref = PartialPsdBlock(d), _PsdBlock(d, single=False)
    assert (part._gather is not None) == (d < FAST_SVEC_MIN)
    assert np.array_equal(part.to_svec(H), svec(H)) and np.array_equal(part.to_svec(H), ref.to_svec(H))
    assert np.allclose(part.to_matrix(svec(H)), ref.to_matrix(svec(H)), rtol=1e-15, atol=0)


@pytest.mark.parametrize("d", [131, FAST_SVEC_MIN + 31])
def test_partial_jacobian_matches_the_full_one_on_both_svec_paths(d):
    # the gather path builds svec(P + P') from two gathers of P, the other path on the packed triangle (dspr2)
    rng = np.random.default_rng(6)
    B = rng.standard_normal((d, d))
    W = B @ B.T / d
    v = rng.standard_normal(d)
    W -= 3.0 * np.outer(v, v) / (v @ v)
    part, full = PartialPsdBlock(d), _PsdBlock(d, single=False)
    (p1, m1), (p2, m2) = part.decompose(svec(W)), full.decompose(svec(W))
    assert part.partial and np.allclose(p1, p2, atol=1e-10) and np.allclose(m1, m2, atol=1e-10)
    X = rng.standard_normal((d, d))
    h = svec(X + X.T)
    assert np.allclose(part.jacobian(h), full.jacobian(h), atol=1e-8)


@pytest.mark.parametrize("n", [4, 8])
def test_agrees_with_clarabel_admm_and_scs(n):
    R, W, _ = tensor_case(n, seed=n)
    S = PseudoMomentSet(R, 3)
    ref = S.support(W, solver="clarabel", tol=1e-10)
    res = S.support(W, solver=SOLVER, tol=1e-8)
    assert res.info["converged"] and res.info["solver"] == SOLVER
    for other in ("admm", "scs"):
        assert abs(S.support(W, solver=other, tol=1e-9).value - res.value) <= 1e-6 * abs(ref.value), other
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert res.info["lower_bound"] <= ref.value + 1e-9 <= res.info["upper_bound"] + 2e-9
    assert res.info["certified_relative_gap"] <= 1e-7
    assert R.check(res.info["pseudo_moments"], tol=1e-9).ok      # the Dirac point: exactly feasible


@pytest.mark.parametrize("n", [6, 8])
def test_packed_face_path_agrees_with_clarabel_end_to_end(n, monkeypatch):
    """The whole solve with the face block on the packed path (``FAST_SVEC_MIN`` lowered below the order, as at
    ``n >= 44``; with the dominant Woodbury preconditioner and its reuse): certified, the value of Clarabel to
    1e-6, the certified bounds around it."""
    import sosproj.sdp.partial_newton as pn

    monkeypatch.setattr(pn, "FAST_SVEC_MIN", 10)
    R, W, _ = tensor_case(n, seed=n + 20)
    S = PseudoMomentSet(R, 3)
    ref = S.support(W, solver="clarabel", tol=1e-10)
    res = S.support(W, solver=SOLVER, tol=1e-8)
    assert res.info["converged"]
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    # the lower bound is an exactly feasible point's value; Clarabel's own value is accurate to ~1e-9 here
    tol = 1e-8 * abs(ref.value)
    assert res.info["lower_bound"] - tol <= ref.value <= res.info["upper_bound"] + tol
    assert res.info["certified_relative_gap"] <= 1e-7


def test_certificate_is_recomputed_and_dominates_points_and_measures():
    n = 7
    R, W, _ = tensor_case(n, seed=3)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    res = solve(prob, solver=SOLVER, tol=1e-8, **settings)
    assert res.converged
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    b = cert.bounds(prob.q, res.x, res.y_dual, repair=False, point_value=float(prob.q @ res.x))
    assert b["relative_gap"] <= 1e-7
    assert b["lower"] == pytest.approx(res.info["cert_lower"], rel=1e-12)
    upper = -b["lower"]
    rng = np.random.default_rng(1)
    T = sum(np.transpose(W, p) for p in SYM) / 6
    for _ in range(30):                    # power-method points (plain HOPM) on the sphere
        x = rng.standard_normal(n)
        x /= np.linalg.norm(x)
        for _ in range(60):
            g = np.einsum("ijk,j,k->i", T, x, x)
            x = g / np.linalg.norm(g)
        assert float(np.einsum("ijk,i,j,k->", W, x, x, x)) <= upper + 1e-12
    for _ in range(5):                     # moments of atomic measures inside the ball
        pts = rng.standard_normal((3, n))
        pts /= np.maximum(1.0, np.linalg.norm(pts, axis=1))[:, None]
        assert float(-(prob.q @ R.moments_of(pts))) <= upper + 1e-12


def test_planted_tensor_is_certified_tight_at_the_planted_direction():
    assert_planted_certified_tight(SOLVER)


def test_wrong_candidate_is_never_reported_solved_and_its_bounds_stay_valid():
    n = 5
    R, W, _ = tensor_case(n, seed=7)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    ref = solve(prob, solver="clarabel", tol=1e-10)
    settings["rounding"] = WrongCandidate(R, 3)
    res = solve(prob, solver=SOLVER, tol=1e-8, on_fail="return", dr_max_iter=50, rounds=2, **settings)
    assert not res.converged and res.status == "max_iter"
    assert -res.info["cert_lower"] >= -ref.objective - 1e-9       # the dual bound is still above the optimum
    assert -res.info["cert_upper"] <= -ref.objective + 1e-9       # and the point's value below it


def test_caps_time_limits_and_refusals():
    n = 6
    R, W, _ = tensor_case(n, seed=4)
    S = PseudoMomentSet(MomentRelaxation(unit_ball(n), 4), 3)
    S.time_limit = 1e-9
    r = S.support(W, solver=SOLVER, tol=1e-12, on_fail="return")
    assert not r.info["converged"] and r.info["status"] in ("time_limit", "max_iter")
    assert r.info["upper_bound"] >= r.info["lower_bound"] - 1e-12
    with pytest.raises(ProjectionError):
        S.support(W, solver=SOLVER, tol=1e-12)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    capped = solve(prob, solver=SOLVER, tol=1e-12, max_iter=1, rounds=1, dr_max_iter=1, on_fail="return",
                   **settings)
    assert not capped.converged and capped.status == "max_iter"
    with pytest.raises(InvalidParameterError):
        support_route(MomentRelaxation(boolean_cube(4), 4), SOLVER, 1e-7, 3)
    with pytest.raises(SolverNotAvailableError):
        RankOneNewtonBackend(prob, tol=1e-7)
    with pytest.raises(ResourceLimitError):
        compile_support(R, 3, W, solver=SOLVER, limit_bytes=1000)
    with pytest.raises(InvalidParameterError):
        RankOneNewtonBackend(prob, tol=1e-7, **{**settings, "dr_gap": 0.0})


def test_time_limit_reserves_the_final_certificate_and_computes_it_once(monkeypatch):
    """The rough phase stops ``lambda_min_seconds`` (one order-N bound, timed at setup) before the limit, and a
    rough phase that ran out of time is certified once, at the end (not also on its own)."""
    import time

    R, W, _ = tensor_case(6, seed=4)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    be = RankOneNewtonBackend(prob, tol=1e-7, time_limit=0.6, **settings)
    assert be.certifier.lambda_min_seconds > 0
    be.certifier.lambda_min_seconds = 0.3
    lower = be.certifier.lower
    calls = []

    def counted(*a):
        calls.append(1)
        return lower(*a)

    slow_douglas_rachford(monkeypatch, be.feas)          # every Douglas-Rachford step takes at least 50 ms
    monkeypatch.setattr(be.certifier, "lower", counted)
    t0 = time.perf_counter()
    raw = be.solve()
    wall = time.perf_counter() - t0
    assert raw.status == "time_limit" and raw.extra["dr_status"] == "time_limit"
    assert raw.extra["dr_iterations"] <= 6 and len(calls) == 1 and wall < 0.6
    assert np.isfinite(raw.extra["cert_lower"]) and raw.extra["cert_upper"] >= raw.extra["cert_lower"]


def test_cholesky_verification_agrees_with_the_eigenvalue_bound():
    """``SupportCertifier.verifies(q, y, floor)`` holds exactly when ``lower(q, y) >= floor`` (up to the
    backward-error margin), on certified, nearly certified and infeasible duals."""
    n = 6
    R, W, _ = tensor_case(n, seed=2)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    res = solve(prob, solver=SOLVER, tol=1e-8, **settings)
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rng = np.random.default_rng(0)
    for scale in (0.0, 1e-4, 1e-2, 1.0):
        y = res.y_dual + scale * rng.standard_normal(res.y_dual.size)
        low = cert.lower(prob.q, y)["lower"]
        slack = 1e-9 * max(1.0, abs(low))
        assert cert.verifies(prob.q, y, low - slack)
        assert not cert.verifies(prob.q, y, low + slack)


def test_phase_one_projection_from_the_top_eigenpairs_matches_the_full_one():
    """The face Newton's phase one projects the moment block from its positive eigenpairs only;
    same projection as the ADMM's full eigendecomposition on a rank-one-plus-negative matrix."""
    from sosproj.sdp.backends.rankone_newton import _FaceSsnal
    from sosproj.sdp.cones import PSDProjector

    R, W, _ = tensor_case(5, seed=1)
    prob = compile_support(R, 3, W)
    face = _FaceSsnal(prob, tol=1e-6, admm_tol=1.0, admm_max_iter=1)
    d = face.face_block.d
    rng = np.random.default_rng(3)
    v = rng.standard_normal(d)
    B = rng.standard_normal((d, d))
    M = 4.0 * np.outer(v, v) / (v @ v) - B @ B.T / d
    for _ in range(2):                        # exact first, then warm-started
        assert np.allclose(face.psd_proj[d](svec(M)), PSDProjector(d)(svec(M)), atol=1e-9)
        M = M + 1e-3 * (B + B.T) / d


def test_every_newton_update_is_certified_and_stops_at_the_first_within_the_gap():
    """``check_updates`` (default): the Newton phase certifies every multiplier update and stops at the first
    one within ``gap_tol``; the answer agrees with the round-level rule and with Clarabel, and is certified."""
    n = 8
    R, W, _ = tensor_case(n, seed=11)
    prob = compile_support(R, 3, W)
    ref = solve(prob, solver="clarabel", tol=1e-10)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    new = solve(prob, solver=SOLVER, tol=1e-7, **settings)
    old = solve(prob, solver=SOLVER, tol=1e-7, check_updates=False, **settings)
    assert new.converged and old.converged
    assert new.info["newton_update_checks"] >= 1 and old.info["newton_update_checks"] == 0
    assert new.info["newton_steps"] <= old.info["newton_steps"]
    for res in (new, old):
        assert res.info["cert_relative_gap"] <= 1e-6
        assert -res.info["cert_lower"] >= -ref.objective - 1e-9 >= -res.info["cert_upper"] - 2e-9
    with pytest.raises(InvalidParameterError):
        RankOneNewtonBackend(prob, tol=1e-7, **{**settings, "check_updates": "yes"})


def test_ssnal_stop_check_stops_at_the_callers_word_and_is_off_by_default():
    """The ``stop_check`` hook of ``ssnal``: called once per multiplier update, the solve returns the triple
    it accepted (status ``solved``, raw status naming the check); without it nothing changes."""
    from sosproj.sdp.backends.ssnal import SsnalBackend

    R, W, _ = tensor_case(4, seed=2)
    prob = compile_support(R, 3, W)
    plain = SsnalBackend(prob, tol=1e-8)
    assert plain.stop_check is None
    ref = plain.solve()
    seen: list[np.ndarray] = []

    def check(x, y, s):
        seen.append(y.copy())
        return len(seen) == 2

    be = SsnalBackend(prob, tol=1e-12)
    be.stop_check = check
    raw = be.solve()
    assert len(seen) == 2 and raw.status == "solved" and raw.raw_status == "stopped by the caller's check"
    assert np.array_equal(raw.y, seen[-1])
    assert ref.status == "solved" and ref.raw_status == "solved"


def test_ssnal_inner_target_tightens_the_subproblems_and_is_off_by_default():
    """The ``inner_target`` hook of ``ssnal``: with it the first multiplier update comes with a smaller dual
    residual; without it (default ``None``) the subproblems keep their own targets."""
    from sosproj.sdp.backends.ssnal import SsnalBackend

    R, W, _ = tensor_case(4, seed=2)
    prob = compile_support(R, 3, W)
    AT = prob.A.T.tocsr()
    res = {}
    for target in (None, 1e-10):
        be = SsnalBackend(prob, tol=1e-8, admm_tol=1e-1)
        assert be.inner_target is None
        be.inner_target = target
        seen: list[float] = []

        def first(x, y, s, seen=seen):
            seen.append(float(np.abs(prob.q + AT @ y).max()))
            return True

        be.stop_check = first
        be.solve()
        res[target] = seen[0]
    assert res[1e-10] < 1e-3 * res[None]


def test_dual_target_asks_for_the_residual_the_certificate_needs():
    """``dual_target``: no change while the update's value part exceeds ``gap_tol / 2`` (either sign); once it
    is within, a target that makes the absorption part ``gap_tol / 2`` under the linear model; both settings
    give certified answers that agree with Clarabel; bad values are refused."""
    n = 8
    R, W, _ = tensor_case(n, seed=11)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    be = RankOneNewtonBackend(prob, tol=1e-7, **settings)
    y = np.zeros(prob.m)
    pv = 10.0
    low = {"lower": -(pv + 1e-3), "dual_value": -(pv + 1e-3), "dual_residual_inf": 1e-2}
    assert be._dual_target(prob.q, y, low, pv, 1e-4) is None                   # value part 1e-4 > gap_tol / 2
    low = {"lower": -(pv + 1e-3), "dual_value": -(pv - 1e-3), "dual_residual_inf": 1e-2}
    assert be._dual_target(prob.q, y, low, pv, 1e-4) is None                   # value part -1e-4
    low = {"lower": -(pv + 1e-3), "dual_value": -pv, "dual_residual_inf": 1e-2}
    norm = 1.0 + float(np.abs(prob.q).max())
    target = be._dual_target(prob.q, y, low, pv, 1e-4)
    assert target == pytest.approx(1e-2 / norm * 0.5 * be.gap_tol / 1e-4)
    ref = solve(prob, solver="clarabel", tol=1e-10)
    for flag in (True, False):
        res = solve(prob, solver=SOLVER, tol=1e-7, dual_target=flag, **settings)
        assert res.converged and res.info["cert_relative_gap"] <= 1e-6
        assert -res.info["cert_lower"] >= -ref.objective - 1e-9 >= -res.info["cert_upper"] - 2e-9
    for bad in ({"dual_target": "yes"}, {"dr_cap_check_every": 0}):
        with pytest.raises(InvalidParameterError):
            RankOneNewtonBackend(prob, tol=1e-7, **{**settings, **bad})


def test_memory_estimate_covers_the_measured_peak_and_admits_n100():
    """The estimate is the measured peak (dense N x N units, ``PEAK_DENSE_UNITS``) plus a fixed part: at
    ``n = 24`` the traced peak of a whole solve stays below the dense part alone, and ``n = 100`` (order
    5,151) is no longer refused by an 11 GiB budget (the estimate that summed the parts asked 11.8 GiB)."""
    import tracemalloc

    from sosproj.sdp.backends.rankone_newton import PEAK_DENSE_UNITS, PEAK_FIXED_BYTES
    from sosproj.sdp.cones import Cones
    from sosproj.sdp.solve import ConicSolver

    R, W, _ = tensor_case(24, seed=1)
    prob = compile_support(R, 3, W)
    N = R.psd_blocks[0].order
    _, settings = support_route(R, SOLVER, 1e-6, 3)
    # one untraced solve first: module imports and one-time caches are not the solve's workspace (run alone, the
    # test otherwise counted them and failed by 0.01%)
    assert ConicSolver(prob, SOLVER, tol=1e-6, **settings).solve().converged
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        solver = ConicSolver(prob, SOLVER, tol=1e-6, **settings)
        assert solver.solve().converged
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert solver.memory_estimate == 8 * PEAK_DENSE_UNITS * N * N + PEAK_FIXED_BYTES
    assert peak <= 8 * PEAK_DENSE_UNITS * N * N
    big = RankOneNewtonBackend.estimate_memory(0, Cones(zero=1, psd=(5151, 101)), 0, 0)
    assert big < 11 * 2 ** 30


def test_auto_penalty_is_a_function_of_the_size_only(monkeypatch):
    """``sigma="auto"``: 1000 for a first Newton round, retried at 3 below moment order ``DR_CAP_MIN_ORDER`` and at
    10 from it on, whatever the tensor (public quantities only); bad values are refused."""
    from sosproj.sdp.backends import rankone_newton as rn

    assert rn.DEFAULT_SIGMA == 1000.0 and rn.LARGE_ORDER_SIGMA == 1000.0
    assert rn.RETRY_SIGMA == 3.0 and rn.LARGE_ORDER_RETRY_SIGMA == 10.0
    R, W, _ = tensor_case(6, seed=1)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    order = R.psd_blocks[0].order
    monkeypatch.setattr(rn, "LARGE_ORDER_SIGMA", 7.0)      # tell the two sizes apart
    for threshold, expected in ((rn.DR_CAP_MIN_ORDER, (rn.DEFAULT_SIGMA, rn.RETRY_SIGMA)),
                                (order, (7.0, rn.LARGE_ORDER_RETRY_SIGMA)),
                                (order + 1, (rn.DEFAULT_SIGMA, rn.RETRY_SIGMA))):
        monkeypatch.setattr(rn, "DR_CAP_MIN_ORDER", threshold)
        sig = {(b.sigma, b.retry_sigma) for b in (RankOneNewtonBackend(compile_support(R, 3, w), tol=1e-7, **settings)
                                                  for w in (W, -2.0 * W))}
        assert sig == {expected}
    assert RankOneNewtonBackend(compile_support(R, 3, W), tol=1e-7, **{**settings, "sigma": 5}).sigma == 5.0
    for bad in ("big", 0.0, True):
        with pytest.raises(InvalidParameterError):
            RankOneNewtonBackend(compile_support(R, 3, W), tol=1e-7, **{**settings, "sigma": bad})


def test_a_time_limited_run_is_not_handed_to_the_fallback_and_a_refused_fallback_is_reported(monkeypatch):
    """A run stopped by its time limit (the forecast stops it before the deadline itself) is answered as
    ``time_limit``; before, the low-rank fallback got the reserve and, at order 5,151, raised the ADMM's size
    refusal out of a valid answer (the research suite at n = 100). A fallback that is refused (too large for the
    ADMM, or out of memory) is reported in ``info["fallback"]``, not raised."""

    import sosproj.sdp.backends.rankone_newton as rn

    R, W, _ = tensor_case(6, seed=4)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    settings = {**settings, "fallback": "lowrank"}
    handed = []

    def refused(*a, **k):
        handed.append(1)
        raise SolverNotAvailableError("the ADMM backend couples 5151 rows (limit 4000); use solver='scs'")

    monkeypatch.setattr(rn, "lowrank_fallback", refused)
    be = RankOneNewtonBackend(prob, tol=1e-7, time_limit=0.6, **settings)
    be.certifier.lambda_min_seconds = 0.3
    slow_douglas_rachford(monkeypatch, be.feas)          # every Douglas-Rachford step takes at least 50 ms
    raw = be.solve()
    assert raw.status == "time_limit" and "fallback" not in raw.extra and not handed
    capped = RankOneNewtonBackend(prob, tol=1e-12, max_iter=1, rounds=1, dr_max_iter=1, **settings).solve()
    assert capped.status == "max_iter" and handed == [1]
    assert capped.extra["fallback"].startswith("refused:") and "5151 rows" in capped.extra["fallback"]
    assert capped.extra["cert_upper"] >= capped.extra["cert_lower"]


def _recomputed(R, prob, sol) -> dict:
    """The certificate of the returned (x, y), recomputed by a fresh certifier (no cached lambda_min bound)."""
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    return cert.bounds(prob.q, sol.x, sol.y, point_value=float(prob.q @ sol.x), repair=False)


@pytest.mark.parametrize("n", [6, 10])
def test_the_reported_certificate_is_the_one_recomputed_on_the_returned_multiplier(n):
    # the final certificate reuses the lambda_min bound computed when the best multiplier was certified, and
    # the rough phase's exact bound is skipped: what is reported must be what a fresh certifier computes
    R, W, _ = tensor_case(n, seed=n + 1)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    sol = RankOneNewtonBackend(prob, tol=1e-7, **settings).solve()
    ref = _recomputed(R, prob, sol)
    assert sol.status == "solved" and ref["relative_gap"] <= sol.extra["cert_gap_tol"]
    assert sol.extra["cert_relative_gap"] == pytest.approx(ref["relative_gap"], rel=1e-9, abs=1e-15)
    assert sol.extra["cert_lower"] == pytest.approx(ref["lower"], rel=1e-12)


@pytest.mark.parametrize("check_updates", [True, False])
def test_a_skipped_certificate_never_reports_an_uncertified_answer_as_certified(check_updates):
    # the rough phase certified dr_gap = 2e-2 by its Cholesky check, so its exact lambda_min bound is skipped
    # (gap_tol is far below it); one Newton step cannot reach gap_tol = 1e-11: the answer must say so, with
    # the certificate of the multiplier it returns
    R, W, _ = tensor_case(8, seed=3)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-12, 3)
    sol = RankOneNewtonBackend(prob, tol=1e-12, max_iter=1, rounds=1, check_updates=check_updates,
                               **settings).solve()
    ref = _recomputed(R, prob, sol)
    assert sol.extra["dr_status"] == "certified"
    assert sol.status != "solved" and sol.raw_status == "certified gap not reached"
    assert ref["relative_gap"] > sol.extra["cert_gap_tol"]
    assert sol.extra["cert_relative_gap"] == pytest.approx(ref["relative_gap"], rel=1e-9)
    # the bounds are valid: the upper bound is above the candidate's value
    assert -sol.extra["cert_lower"] >= -float(prob.q @ sol.x) - 1e-12


def test_bounds_reuses_a_given_lower_bound_as_it_is():
    R, W, _ = tensor_case(5, seed=2)
    prob = compile_support(R, 3, W)
    res = solve(prob, solver="clarabel", tol=1e-9)
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    low = cert.lower(prob.q, res.y_dual)
    a = cert.bounds(prob.q, res.x, res.y_dual, repair=False)
    b = cert.bounds(prob.q, res.x, res.y_dual, repair=False, low=low)
    assert a.keys() == b.keys()
    assert all(a[k] == b[k] or (np.isnan(a[k]) and np.isnan(b[k])) for k in a)


def test_the_face_block_filter_keeps_warm_decompositions_exact():
    # W = Z - sigma Y at a rank-one face: one eigenvalue far below a positive spectrum, moving slowly between
    # Newton steps. The degree-8 filter (FACE_EIG) reaches the 1e-10 residual from the last block, so only the
    # first call decomposes exactly, and every answer equals the full eigendecomposition's projection
    d = 120
    rng = np.random.default_rng(9)
    B = rng.standard_normal((d, d))
    Z = B @ B.T / d + 0.02 * np.eye(d)
    v = rng.standard_normal(d)
    part, full = PartialPsdBlock(d), _PsdBlock(d, single=False)
    for step in range(6):
        u = v + 0.05 * step * rng.standard_normal(d)
        W = Z - (8.0 + step) * np.outer(u, u) / (u @ u) + 1e-3 * step * np.eye(d)
        (p1, m1), (p2, m2) = full.decompose(svec(W)), part.decompose(svec(W))
        assert part.partial and part.lam_n.size == 1
        assert np.allclose(p1, p2, atol=1e-9) and np.allclose(m1, m2, atol=1e-9)
    assert part.neg.method == "filter" and part.neg.exact_calls == 1 and part.missed_calls == 0


@pytest.mark.parametrize("d", [11, 23])
def test_tangent_factorization_is_exactly_the_jacobian_defect(d, monkeypatch, limit8):
    """``PartialPsdBlock.tangent``: ``I - J = S N S'`` on the whole svec space (dense check), with ``N^{-1}``
    given explicitly, for one and two negative eigenvalues; ``None`` with none, with more than
    ``TANGENT_MAX_NEGATIVE`` and after a full decomposition."""
    import sosproj.sdp.partial_newton as pn

    assert pn.TANGENT_MAX_NEGATIVE == 1
    monkeypatch.setattr(pn, "TANGENT_MAX_NEGATIVE", 2)     # the k = 2 path is exact too
    TANGENT_MAX_NEGATIVE = 2
    rng = np.random.default_rng(d)
    B = rng.standard_normal((d, d))
    W0 = B @ B.T / d + 0.1 * np.eye(d)
    V = np.linalg.qr(rng.standard_normal((d, TANGENT_MAX_NEGATIVE + 1)))[0]
    part = PartialPsdBlock(d)
    for k in (1, 1, TANGENT_MAX_NEGATIVE, 1):   # the fixed pattern of S is reused with new values
        W = W0 - (V[:, :k] * rng.uniform(2.0, 9.0, k)) @ V[:, :k].T
        part.decompose(svec(W))
        assert part.lam_n.size == k
        S, Ninv = part.tangent()
        m = S.shape[0]
        J = np.column_stack([part.jacobian(e) for e in np.eye(m)])
        Sd = S.toarray()
        assert np.allclose(np.eye(m) - J, Sd @ np.linalg.solve(Ninv, Sd.T), atol=1e-12)
        assert np.allclose(Ninv, Ninv.T) and np.linalg.eigvalsh(Ninv)[0] > 0
    part.decompose(svec(W0 - 3.0 * V @ V.T))
    assert part.partial and part.lam_n.size == TANGENT_MAX_NEGATIVE + 1
    monkeypatch.setattr(pn, "TANGENT_DOMINANT", False)
    assert part.tangent() is None
    part.decompose(svec(W0))
    assert part.tangent() is None
    many = np.linalg.qr(rng.standard_normal((d, MAX_NEGATIVE + 1)))[0]
    part.decompose(svec(W0 - 3.0 * many @ many.T))
    assert not part.partial and part.tangent() is None


@pytest.mark.parametrize("kept", [1, 2])
def test_dominant_tangent_is_the_defect_at_the_point_without_the_small_negatives(kept, monkeypatch):
    """With more negative eigenvalues than ``TANGENT_MAX_NEGATIVE`` (``TANGENT_DOMINANT``), ``tangent`` factors
    ``I - J'`` exactly, ``J'`` the Jacobian at ``W' = W - sum_{j > K} lambda_j q_j q_j'`` (the ``K`` most negative
    kept; a dense reference built from the formula at ``W'``), with a positive definite ``N^{-1}``; and ``J'``
    differs from the true Jacobian (so the preconditioner is not the Newton matrix's exact inverse there)."""
    import sosproj.sdp.partial_newton as pn

    monkeypatch.setattr(pn, "TANGENT_MAX_NEGATIVE", kept)
    assert pn.TANGENT_DOMINANT
    d = 13
    rng = np.random.default_rng(7)
    B = rng.standard_normal((d, d))
    V = np.linalg.qr(rng.standard_normal((d, 3)))[0]
    W = B @ B.T / d + np.eye(d) - (V * np.array([4.0, 60.0, 3.5])) @ V.T
    part = PartialPsdBlock(d)
    part.decompose(svec(W))
    assert part.partial and part.lam_n.size == 3
    S, Ninv = part.tangent()
    assert S.shape[1] == d * kept and np.linalg.eigvalsh(Ninv)[0] > 0
    order = np.argsort(part.lam_n)
    keep, rest = order[:kept], order[kept:]
    ref = PartialPsdBlock(d)      # the Jacobian of the module docs at W', its K negative eigenpairs given
    Qr = part.Qn[:, rest]
    ref.M = part.M - (Qr * part.lam_n[rest]) @ Qr.T
    ref.lam_n, ref.Qn, ref.partial, ref._chol = part.lam_n[keep], part.Qn[:, keep], True, None
    m = S.shape[0]
    Jp = np.column_stack([ref.jacobian(e) for e in np.eye(m)])
    Sd = S.toarray()
    assert np.allclose(np.eye(m) - Jp, Sd @ np.linalg.solve(Ninv, Sd.T), atol=1e-11)
    J = np.column_stack([part.jacobian(e) for e in np.eye(m)])
    assert np.abs(J - Jp).max() > 1e-3


@pytest.mark.parametrize("full_tangent", [True, False])
def test_full_path_tangent_is_the_dominant_defect(full_tangent, monkeypatch, limit8):
    """After a full decomposition (more than ``MAX_NEGATIVE`` negative eigenvalues) with ``FULL_TANGENT``, ``tangent``
    factors ``I - J'`` at ``W'`` (the most negative pair kept, the others set to zero) as on the partial path, and
    ``jacobian_diag`` is the ones its Woodbury form assumes; without it, ``None`` and the true diagonal."""
    monkeypatch.setattr(pn, "FULL_TANGENT", full_tangent)
    d = 24
    k = MAX_NEGATIVE + 3
    rng = np.random.default_rng(9)
    B = rng.standard_normal((d, d))
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    W = B @ B.T / d + np.eye(d) - (V * np.concatenate([[60.0], np.linspace(3.0, 4.0, k - 1)])) @ V.T
    part = PartialPsdBlock(d)
    part.decompose(svec(W))
    assert not part.partial and part.d - part.npos == k
    if not full_tangent:
        assert part.tangent() is None and not np.allclose(part.jacobian_diag(), 1.0)
        return
    assert np.array_equal(part.jacobian_diag(), np.ones(d * (d + 1) // 2))
    S, Ninv = part.tangent()
    assert S.shape[1] == d and np.linalg.eigvalsh(Ninv)[0] > 0
    ref = PartialPsdBlock(d)      # the Jacobian of the module docs at W', its dominant negative pair given
    lam, Q = np.linalg.eigh(W)
    ref.M = W - (Q[:, 1:k] * lam[1:k]) @ Q[:, 1:k].T
    ref.lam_n, ref.Qn, ref.partial, ref._chol = lam[:1], Q[:, :1], True, None
    m = S.shape[0]
    Jp = np.column_stack([ref.jacobian(e) for e in np.eye(m)])
    Sd = S.toarray()
    assert np.allclose(np.eye(m) - Jp, Sd @ np.linalg.solve(Ninv, Sd.T), atol=1e-10)


def test_packed_jacobian_is_the_derivative_of_the_projection():
    """From order ``FAST_SVEC_MIN`` on the Jacobian runs on the packed triangle (``dspmv`` / ``dspr2``): it equals
    the dense formula of the module docs and a central finite difference of the projection, with three negative
    eigenvalues of very different sizes (the face of an ``n = 64`` solve)."""
    d = FAST_SVEC_MIN + 7
    rng = np.random.default_rng(8)
    B = rng.standard_normal((d, d))
    V = np.linalg.qr(rng.standard_normal((d, 3)))[0]
    W = B @ B.T / d + 0.2 * np.eye(d) - (V * np.array([900.0, 3.0, 2.5])) @ V.T
    part = PartialPsdBlock(d)
    assert part._gather is None
    w = svec(W)
    part.decompose(w)
    assert part.partial and part.lam_n.size == 3
    X = rng.standard_normal((d, d))
    h = svec(X + X.T)
    Jh = part.jacobian(h)
    H = part.to_matrix(h)                 # the module docs' formula, dense, each resolvent by a dense solve
    HQ = H @ part.Qn
    G = part.Qn.T @ HQ
    Rm = HQ - part.Qn @ G
    C = np.column_stack([np.linalg.solve(part.M + (part.Qn * (50.0 - part.lam_n + lj)) @ part.Qn.T - lj * np.eye(d),
                                         Rm[:, j]) for j, lj in enumerate(part.lam_n)])
    C -= part.Qn @ (part.Qn.T @ C)
    P = (0.5 * (part.Qn @ G) + C * (-part.lam_n)) @ part.Qn.T
    assert np.allclose(Jh, h - part.to_svec(P + P.T), atol=1e-9)
    t = 1e-5
    plus = PartialPsdBlock(d).decompose(w + t * h)[0]
    minus = PartialPsdBlock(d).decompose(w - t * h)[0]
    fd = (plus - minus) / (2 * t)
    assert np.linalg.norm(fd - Jh) <= 1e-6 * np.linalg.norm(Jh)


def test_woodbury_preconditioner_inverts_the_newton_matrix():
    """On a face with one negative eigenvalue the CG preconditioner is the exact inverse of the Newton
    matrix (its Jacobian, not a diagonal); the plain ``ssnal`` backend (no face block) keeps the diagonal
    one; and the Newton solves with and without it reach the same certified value."""
    from sosproj.sdp.backends.rankone_newton import _FaceSsnal
    from sosproj.sdp.backends.ssnal import SsnalBackend

    R, W, _ = tensor_case(5, seed=1)
    prob = compile_support(R, 3, W)
    face = _FaceSsnal(prob, tol=1e-6, admm_tol=1.0, admm_max_iter=1, rho=7.0)
    d = face.face_block.d
    rng = np.random.default_rng(4)
    v = rng.standard_normal(d)
    B = rng.standard_normal((d, d))
    Wm = B @ B.T / d + 0.05 * np.eye(d) - 5.0 * np.outer(v, v) / (v @ v)
    Wv = np.zeros(prob.A.shape[0])
    Wv[face.blocks[0][0]] = svec(Wm)
    for sl, blk in face.blocks[1:]:
        Wv[sl] = svec(np.eye(blk.d))
    _, _, active = face._split(Wv)
    assert face.face_block.partial and face.face_block.lam_n.size == 1
    fac = face._preconditioner(active)
    pre = face._woodbury(fac)
    assert pre is not None
    n = prob.A.shape[1]
    for _ in range(3):
        x = rng.standard_normal(n)
        Hx = face.AT @ (face.rv * face._jac(face.A @ x, active))
        assert np.linalg.norm(pre(Hx) - x) <= 1e-7 * np.linalg.norm(x)
        assert np.linalg.norm(face.normal_solve(Hx, fac) - x) > 1e-3 * np.linalg.norm(x)   # the diagonal one is not
    plain = SsnalBackend(prob, tol=1e-6, admm_max_iter=1)
    assert plain._woodbury(plain._preconditioner(np.ones(prob.A.shape[0], dtype=bool))) is None
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    vals = []
    for flag in (True, False):
        SsnalBackend.options["tangent_precond"] = flag
        try:
            sol = solve(prob, SOLVER, tol=1e-7, **settings)
        finally:
            SsnalBackend.options["tangent_precond"] = True
        assert sol.status == "solved" and sol.info["cert_relative_gap"] <= sol.info["cert_gap_tol"]
        vals.append(sol.info["cert_upper"])
    assert abs(vals[0] - vals[1]) <= 1e-6 * abs(vals[1])


def test_face_preconditioner_is_reused_only_while_the_face_stays_put():
    """``ssnal``'s ``tangent_reuse``: the Woodbury preconditioner is kept for the next Newton step when the dominant
    negative eigenpair barely moved, rebuilt when it moved or the penalty changed; CG runs against the true Newton
    matrix either way (a reused preconditioner still gives the exact Newton direction to CG's tolerance); and the
    whole solve with reuse reaches the certified value of the solve without it."""
    from sosproj.sdp.backends.rankone_newton import FACE_PRECOND_REUSE, _FaceSsnal

    R, W, _ = tensor_case(5, seed=1)
    prob = compile_support(R, 3, W)
    face = _FaceSsnal(prob, tol=1e-6, admm_tol=1.0, admm_max_iter=1, rho=7.0)
    assert face.tangent_reuse == FACE_PRECOND_REUSE > 0
    d = face.face_block.d
    rng = np.random.default_rng(5)
    v = rng.standard_normal(d)
    B = rng.standard_normal((d, d))
    base = B @ B.T / d + 0.05 * np.eye(d)

    def state(vec):
        Wv = np.zeros(prob.A.shape[0])
        Wv[face.blocks[0][0]] = svec(base - 5.0 * np.outer(vec, vec) / (vec @ vec))
        for sl, blk in face.blocks[1:]:
            Wv[sl] = svec(np.eye(blk.d))
        return face._split(Wv)[2]

    n = prob.A.shape[1]
    grad = rng.standard_normal(n)
    active = state(v)
    face._newton_dir(grad, active, 1e-10)
    assert face.precond_reused == 0
    active = state(v + 1e-4 * rng.standard_normal(d))           # a nearby face: reused
    d1, _ = face._newton_dir(grad, active, 1e-10)
    assert face.precond_reused == 1
    Hd = face.AT @ (face.rv * face._jac(face.A @ d1, active)) + face.p_diag * d1
    assert np.linalg.norm(Hd + grad) <= 1e-8 * np.linalg.norm(grad)
    active = state(rng.standard_normal(d))                      # another face: rebuilt
    face._newton_dir(grad, active, 1e-10)
    assert face.precond_reused == 1
    face.rho *= 3.0
    face._factor()
    face._newton_dir(grad, active, 1e-10)                      # another penalty: rebuilt
    assert face.precond_reused == 1
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    vals = []
    for reuse in (FACE_PRECOND_REUSE, 0.0):
        import sosproj.sdp.backends.rankone_newton as rn
        old = rn.FACE_PRECOND_REUSE
        rn.FACE_PRECOND_REUSE = reuse
        try:
            sol = solve(prob, SOLVER, tol=1e-7, **settings)
        finally:
            rn.FACE_PRECOND_REUSE = old
        assert sol.status == "solved" and sol.info["cert_relative_gap"] <= sol.info["cert_gap_tol"]
        vals.append(sol.info["cert_upper"])
    assert abs(vals[0] - vals[1]) <= 1e-6 * abs(vals[1])


def test_auto_penalty_is_large_only_for_a_first_round_after_a_certified_rough_phase(monkeypatch):
    """``sigma="auto"`` below order 1,000: the first Newton round runs at ``DEFAULT_SIGMA`` after a certified rough
    phase, at ``RETRY_SIGMA`` after one that missed ``dr_gap`` and in every later round (a poor hand-over stalled
    the certified gap at the large penalty); an explicit ``sigma`` is used in every round."""
    from sosproj.sdp.backends import rankone_newton as rn

    R, W, _ = tensor_case(8, seed=3)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    seen: list[float] = []
    orig = rn._FaceSsnal.solve

    def spy(self, *a, **k):
        seen.append(self.rho)
        return orig(self, *a, **k)

    monkeypatch.setattr(rn._FaceSsnal, "solve", spy)
    cases = [({}, "certified"), ({"dr_cap": 4, "dr_cap_gap": 1e-14, "dr_max_iter": 40, "dr_gap": 1e-14}, "max_iter"),
             ({"sigma": 50.0, "dr_max_iter": 40, "dr_gap": 1e-14}, "max_iter")]
    rounds = []
    for kw, dr in cases:
        seen.clear()
        sol = solve(prob, SOLVER, tol=1e-8, **{**settings, **kw})
        assert sol.converged and sol.info["cert_relative_gap"] <= 1e-7 and sol.info["dr_status"] == dr
        assert len(seen) == sol.info["newton_rounds"] >= 1
        if "sigma" in kw:
            assert set(seen) == {50.0}
        else:
            first = rn.DEFAULT_SIGMA if dr == "certified" else rn.RETRY_SIGMA
            assert seen == [first] + [rn.RETRY_SIGMA] * (len(seen) - 1)
        rounds.append(len(seen))
    assert rounds[0] >= 2          # this tensor needs a second round after the large penalty: the retry is exercised


@pytest.mark.parametrize("per_row", [1, 3])
def test_tangent_image_equals_the_sparse_product(per_row, monkeypatch):
    """``SsnalBackend._tangent_image`` (a class-sum map built once) equals ``A_b' S`` for one and two column blocks,
    with one moment per svec row (the moment matrix) and with rows holding 0-3 moments (reduced systems)."""
    import types

    import scipy.sparse as sps

    import sosproj.sdp.partial_newton as pn
    from sosproj.sdp.backends.ssnal import SsnalBackend

    monkeypatch.setattr(pn, "TANGENT_MAX_NEGATIVE", 2)
    d, n = 9, 30
    m = d * (d + 1) // 2
    rng = np.random.default_rng(per_row)
    if per_row == 1:
        A = sps.csr_matrix((rng.standard_normal(m), (np.arange(m), rng.integers(0, n, m))), shape=(m + 2, n))
    else:
        A = sps.random(m + 2, n, density=per_row / n, random_state=rng, format="csr")
    sl = slice(1, 1 + m)
    fake = types.SimpleNamespace(A=A, _block_AT={})
    part = PartialPsdBlock(d)
    B = rng.standard_normal((d, d))
    V = np.linalg.qr(rng.standard_normal((d, 2)))[0]
    for k in (1, 2, 1):
        part.decompose(svec(B @ B.T / d + 0.1 * np.eye(d) - 4.0 * V[:, :k] @ V[:, :k].T))
        S, _ = part.tangent()
        E, ET = SsnalBackend._tangent_image(fake, sl, S)
        ref = (A[sl].T @ S).toarray()
        assert E.shape == ref.shape and np.allclose(E.toarray(), ref, atol=1e-13)
        assert np.allclose(ET.toarray(), ref.T, atol=1e-13)


def test_newton_phase_takes_more_coupled_rows_than_the_admm(monkeypatch):
    """The Newton phase's workspace accepts the localizing block's coupled rows beyond the ADMM's limit (at
    ``n = 100`` 5,151 against 4,000: the Newton phase was refused there before issue 15's session 29): with the
    ADMM's limit lowered below this problem's coupled rows, the ADMM refuses, the whole solve still agrees with
    Clarabel and is certified."""
    from sosproj.sdp.backends.admm import AdmmBackend

    R, W, _ = tensor_case(5, seed=3)
    prob = compile_support(R, 3, W)
    coupled = int(np.count_nonzero(np.diff(prob.A.tocsr().indptr) > 1))
    assert coupled > 4
    monkeypatch.setattr(AdmmBackend, "max_coupled_rows", coupled - 1)
    with pytest.raises(SolverNotAvailableError, match="couples"):
        AdmmBackend(prob, tol=1e-6)
    ref = solve(prob, "clarabel", tol=1e-10)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    sol = solve(prob, SOLVER, tol=1e-8, **{**settings, "dr_gap": 0.3})   # a loose hand-over: the Newton phase works
    assert sol.converged and sol.info["newton_steps"] >= 1 and sol.info["cert_relative_gap"] <= 1e-7
    assert abs(sol.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    assert sol.info["cert_lower"] <= ref.objective + 1e-9 <= sol.info["cert_upper"] + 2e-9


def test_full_path_single_products_are_float32_views_of_the_float64_ones(limit8):
    # FULL_SINGLE_RTOL (issue 15, session 31): set_single switches the full path's CG products to float32 factors;
    # they agree with the float64 product to float32 rounding, and switching back gives the float64 numbers exactly
    d, k = FAST_SVEC_MIN + 31, MAX_NEGATIVE + 12
    rng = np.random.default_rng(31)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    lam = np.concatenate([-rng.uniform(0.1, 3.0, k), rng.uniform(0.1, 3.0, d - k)])
    part = PartialPsdBlock(d)
    part.decompose(svec((Q * lam) @ Q.T))
    assert not part.partial and not part.single
    X = rng.standard_normal((d, d))
    h = svec(X + X.T)
    ref = part.jacobian(h)
    part.set_single(True)
    single = part.jacobian(h)
    assert part._jac_factors()[0].dtype == np.float32 and single.dtype == np.float64
    err = np.max(np.abs(single - ref)) / np.max(np.abs(ref))
    assert 1e-12 < err < 1e-5                      # float32 rounding: not the float64 numbers, close to them
    part.set_single(False)
    assert part._jac_factors()[0].dtype == np.float64
    np.testing.assert_array_equal(part.jacobian(h), ref)


def test_face_cg_runs_single_only_above_the_tolerance_and_restores_float64(monkeypatch):
    # the face solver's _newton_dir sets float32 products for CG only while its tolerance is >= FULL_SINGLE_RTOL,
    # and float64 again after it (the line search, the residuals and the certificate never see float32)
    from sosproj.sdp.backends import rankone_newton as rn
    from sosproj.sdp.backends.ssnal import SsnalBackend
    R, W, _ = tensor_case(6, seed=4)
    prob = compile_support(R, 3, W)
    face = rn._FaceSsnal(prob, tol=1e-6, admm_tol=1.0, admm_max_iter=1)
    seen = []
    monkeypatch.setattr(pn, "FULL_SINGLE_RTOL", 1e-5)       # a threshold inside the tolerances below

    def spy(self, grad, active, rtol):
        seen.append(self.face_block.single)
        return grad, 0
    monkeypatch.setattr(SsnalBackend, "_newton_dir", spy)
    g = np.ones(3)
    for rtol in (1e-2, pn.FULL_SINGLE_RTOL, 0.5 * pn.FULL_SINGLE_RTOL, 1e-7):
        face._newton_dir(g, None, rtol)
        assert not face.face_block.single
    assert seen == [True, True, False, False]
    monkeypatch.setattr(pn, "FULL_SINGLE_RTOL", None)
    face._newton_dir(g, None, 1e-2)
    assert seen[-1] is False and not face.face_block.single


@pytest.mark.parametrize("n", [6, 10])
def test_single_cg_products_on_the_full_path_leave_the_certificate_recomputed(n, monkeypatch):
    # every decomposition on the full path (MAX_NEGATIVE = 0) with every CG product in float32 (FULL_SINGLE_RTOL
    # tiny): still solved, and the reported certificate is what a fresh float64 certifier computes on the answer
    monkeypatch.setattr(pn, "MAX_NEGATIVE", 0)
    monkeypatch.setattr(pn, "FULL_SINGLE_RTOL", 1e-300)
    R, W, _ = tensor_case(n, seed=n + 1)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-7, 3)
    sol = RankOneNewtonBackend(prob, tol=1e-7, **settings).solve()
    ref = _recomputed(R, prob, sol)
    assert sol.status == "solved" and ref["relative_gap"] <= sol.extra["cert_gap_tol"]
    assert sol.extra["cert_relative_gap"] == pytest.approx(ref["relative_gap"], rel=1e-9, abs=1e-15)
    assert sol.extra["cert_lower"] == pytest.approx(ref["lower"], rel=1e-12)


def test_a_newton_steps_multiplier_certified_inside_a_subproblem_ends_the_solve(monkeypatch):
    # INNER_CHECK_FACTOR (issue 15, session 32): once an update set the dual target, a Newton step's multiplier is
    # certified inside the subproblem; n = 12 at gap_tol 3e-9 has an update that misses the gap and a later step
    # that certifies. With the check the solve stops there, one Newton step earlier; the answer's certificate is
    # what a fresh certifier computes on the returned multiplier, within gap_tol, and brackets Clarabel's value
    from sosproj.sdp.backends import rankone_newton as rn
    R, W, _ = tensor_case(12, seed=1)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    settings["gap_tol"] = 3e-9
    ref = solve(prob, solver="clarabel", tol=1e-10)
    out = {}
    for fac in (None, rn.INNER_CHECK_FACTOR):
        monkeypatch.setattr(rn, "INNER_CHECK_FACTOR", fac)
        sol = RankOneNewtonBackend(prob, tol=1e-8, **settings).solve()
        rec = _recomputed(R, prob, sol)
        assert sol.status == "solved" and rec["relative_gap"] <= 3e-9
        assert sol.extra["cert_relative_gap"] == pytest.approx(rec["relative_gap"], rel=1e-9, abs=1e-15)
        assert -sol.extra["cert_lower"] >= -ref.objective - 1e-9 >= -sol.extra["cert_upper"] - 2e-9
        out[fac] = sol.extra
    off, on = out[None], out[rn.INNER_CHECK_FACTOR]
    assert off["newton_inner_checks"] == 0 and not off["newton_inner_stop"]
    assert on["newton_inner_checks"] >= 1 and on["newton_inner_stop"]
    assert on["newton_steps"] < off["newton_steps"] and on["newton_cg"] < off["newton_cg"]


def test_inner_check_runs_only_near_the_target_and_stops_only_on_the_callers_word(monkeypatch):
    # _FaceSsnal._maybe_certify: nothing without a target, a check or the flag; a check only at a relative dual
    # residual <= INNER_CHECK_FACTOR * target and after it fell by INNER_CHECK_DROP; raises only when accepted
    from sosproj.sdp.backends import rankone_newton as rn
    R, W, _ = tensor_case(6, seed=4)
    prob = compile_support(R, 3, W)
    face = rn._FaceSsnal(prob, tol=1e-6, admm_tol=1.0, admm_max_iter=1)
    face._q = prob.q
    y = np.zeros(prob.m)
    face._phi(np.zeros(prob.n), y, prob.q, prob.b)
    st = face._last_st
    grad = st["Px"] + prob.q + face.AT @ st["yp"]
    dres = face._subproblem_dres(grad, st, prob.q)
    asked: list[np.ndarray] = []
    answer = [False]

    def check(yv):
        asked.append(yv)
        return answer[0]
    face._maybe_certify(grad)                            # no check, no target: nothing
    face.inner_check = check
    face._maybe_certify(grad)
    assert asked == []
    face.inner_target = dres / (2.0 * rn.INNER_CHECK_FACTOR)          # too far from the target
    face._maybe_certify(grad)
    assert asked == []
    face.inner_target = dres / rn.INNER_CHECK_FACTOR
    face._maybe_certify(grad)                             # checked, refused: the solve goes on
    assert len(asked) == 1 and asked[0] is st["yp"] and face.inner_checks == 1
    face._maybe_certify(grad)                             # the residual did not fall: no second check
    assert len(asked) == 1
    face._checked_dres = dres / rn.INNER_CHECK_DROP
    answer[0] = True
    with pytest.raises(rn._InnerCertified):
        face._maybe_certify(grad)
    assert len(asked) == 2
    monkeypatch.setattr(rn, "INNER_CHECK_FACTOR", None)
    face._checked_dres = np.inf
    face._maybe_certify(grad)
    assert len(asked) == 2


def test_no_certificate_is_computed_while_the_products_are_float32(monkeypatch):
    # every CG product in float32 (FULL_SINGLE_RTOL tiny, every decomposition on the full path) and a check at every
    # Newton step once the dual target is set: each certificate (updates and in-subproblem checks) is computed with
    # the face block back in float64, and the reported one is a fresh float64 certifier's on the answer
    from sosproj.sdp.backends import rankone_newton as rn
    monkeypatch.setattr(pn, "MAX_NEGATIVE", 0)
    monkeypatch.setattr(pn, "FULL_SINGLE_RTOL", 1e-300)
    monkeypatch.setattr(rn, "INNER_CHECK_FACTOR", 1e300)
    monkeypatch.setattr(rn, "INNER_CHECK_DROP", np.inf)
    R, W, _ = tensor_case(12, seed=1)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, SOLVER, 1e-8, 3)
    settings["gap_tol"] = 3e-9
    be = RankOneNewtonBackend(prob, tol=1e-8, **settings)
    lower = be.certifier.lower
    single: list[bool] = []

    def spy(q, y, *args, **kw):
        single.append(be._newton is not None and be._newton.face_block.single)
        return lower(q, y, *args, **kw)
    monkeypatch.setattr(be.certifier, "lower", spy)
    sol = be.solve()
    assert sol.extra["newton_inner_checks"] >= 1 and sol.extra["full_decompositions"] >= 1
    assert len(single) >= 2 and not any(single)
    rec = _recomputed(R, prob, sol)
    assert sol.status == "solved" and rec["relative_gap"] <= 3e-9
    assert sol.extra["cert_relative_gap"] == pytest.approx(rec["relative_gap"], rel=1e-9, abs=1e-15)

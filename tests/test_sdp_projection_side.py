"""Projections with the smaller side of the spectrum (``solver="lowrank"`` on least-squares costs).

The ``lowrank`` backend projects the PSD blocks of a projection problem with
``_SidePSDProjector`` (MRRR on the smaller side of the spectrum, single precision while the
ADMM is far from converged). Checked here: the projector equals a full ``eigh`` whatever the side
and however the side's size jumps between calls; the projections equal Clarabel's / the ADMM's
at tight tolerance and satisfy the optimality conditions (primal feasibility, the variational
inequality against feasible points, dual feasibility and complementarity); caps, time limits and
memory refusals are never reported as solved; supports keep the positive-side projector.
"""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.errors import ProjectionError, ResourceLimitError
from sosproj.poly import unit_ball
from sosproj.sdp.backends import lowrank
from sosproj.sdp.backends.side_spectrum import cluster_share, mrrr_share_limit, side_eigh, side_gram
from sosproj.sdp.compile import compile_projection, compile_support
from sosproj.sdp.cones import PSDProjector
from sosproj.sdp.conic import cone_violation, smat, svec
from sosproj.sdp.solve import ConicSolver, solve
from sosproj.sets.pseudo_moment import PseudoMomentSet


def _random_sym(d: int, npos: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([-rng.uniform(0.1, 2.0, d - npos), rng.uniform(0.1, 2.0, npos)])
    return (Q * lam) @ Q.T


def _noisy_tensor(R, seed: int, noise: float, atoms: int = 6) -> np.ndarray:
    """Moments of a few atoms on the sphere plus noise: a projection onto a low-rank face."""
    rng = np.random.default_rng(seed)
    ro = R.readout(3)
    pts = rng.standard_normal((atoms, ro.n))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    T = ro.to_tensor(ro(R.moments_of(pts, check_support=False)))
    return T + noise * rng.standard_normal(T.shape)


def test_side_projector_equals_the_full_eigendecomposition():
    """A sequence of matrices whose positive count jumps (1 -> 118 -> 4 -> 60): every call equals
    PSDProjector; the small sides go through MRRR, a grown side is widened, not truncated; in single
    precision the answer is within float32 accuracy."""
    d = 120
    side = lowrank._SidePSDProjector(d)
    ref = PSDProjector(d)
    side.rtol = 1e-9                                   # double precision
    for step, npos in enumerate([1, 118, 4, 4, 60, 3, 119]):
        v = svec(_random_sym(d, npos, seed=step))
        np.testing.assert_allclose(side(v), ref(v), atol=1e-10)
        assert side.n_pos == npos and side.n_neg == d - npos
    assert side.subset_calls >= 4 and side.widened >= 1          # both sides, and a widened block
    assert side.single_calls == 0
    side.rtol = 1.0                                    # far from converged: single precision
    for npos in (2, 117, 50):
        W = _random_sym(d, npos, seed=100 + npos)
        np.testing.assert_allclose(side(svec(W)), ref(svec(W)), atol=2e-5 * np.linalg.norm(W))
        assert side.n_pos == npos
    assert side.single_calls == 3
    # a PSD and a negative definite matrix
    for npos in (0, d):
        v = svec(_random_sym(d, npos, seed=7))
        np.testing.assert_allclose(side(v), ref(v), atol=1e-5)


def test_side_gram_is_the_one_sided_spectral_sum_on_the_lower_triangle():
    """side_gram (one syrk) equals (V diag(lam)) V' (positive side) and M - (V diag(lam)) V' (negative
    side, M's upper triangle read and updated in place) on the lower triangle, where the scaled svec
    reads; and the side projector's whole-spectrum branch forms the projection from either side (more
    positive or more negative eigenvalues) exactly."""
    d = 90
    M = _random_sym(d, 40, seed=3)
    lam, V = np.linalg.eigh(M)
    low = np.tril_indices(d)
    G = side_gram(V[:, 50:], lam[50:])
    np.testing.assert_allclose(G[low], ((V[:, 50:] * lam[50:]) @ V[:, 50:].T)[low], atol=1e-12)
    buf = np.triu(M) + np.tril(np.full((d, d), 1e3), -1)          # the lower triangle is never read
    G = side_gram(V[:, :50], lam[:50], buf)
    want = M - (V[:, :50] * lam[:50]) @ V[:, :50].T
    np.testing.assert_allclose(G[low], want[low], atol=1e-12)
    np.testing.assert_allclose(buf.T[low], want[low], atol=1e-12)      # in place: no d x d copy
    ref = PSDProjector(d)
    for npos in (30, 60):                                # k/d above the share limit: divide and conquer
        side = lowrank._SidePSDProjector(d)
        side.rtol = 1e-9
        v = svec(_random_sym(d, npos, seed=npos))
        np.testing.assert_allclose(side(v), ref(v), atol=1e-10)
        assert side.subset_calls == 0 and side.n_pos == npos


def test_side_eigh_is_the_smaller_side_of_the_full_eigendecomposition():
    """side_eigh (reduction, all eigenvalues, back-transformation of one side) returns the eigenpairs of
    numpy's eigh on the smaller side, in double and single precision, from C- or Fortran-ordered input,
    with or without overwriting; definite matrices give an empty side."""
    d = 70
    for npos, dtype, atol in ((20, np.float64, 1e-10), (50, np.float64, 1e-10), (35, np.float64, 1e-10),
                              (20, np.float32, 2e-4), (50, np.float32, 2e-4)):
        M = _random_sym(d, npos, seed=npos).astype(dtype)
        lam_ref, V_ref = np.linalg.eigh(M.astype(np.float64))
        for A, overwrite in ((M, False), (np.asfortranarray(M), False), (M.copy(), True)):
            lam, V, positive, n_neg = side_eigh(A, overwrite=overwrite)
            assert n_neg == d - npos and positive == (npos < d - npos) and V.dtype == dtype
            sel = slice(n_neg, d) if positive else slice(0, n_neg)
            np.testing.assert_allclose(lam, lam_ref[sel], atol=atol)
            V64 = V.astype(np.float64)
            np.testing.assert_allclose(V64.T @ V64, np.eye(lam.size), atol=atol)
            # eigenvectors up to sign (the eigenvalues are simple): M V = V diag(lam)
            np.testing.assert_allclose(M.astype(np.float64) @ V64, V64 * lam, atol=10 * atol)
        np.testing.assert_array_equal(M, _random_sym(d, npos, seed=npos).astype(dtype))   # input kept
    # a C-ordered matrix is read from its upper triangle only (the side projector fills no other)
    M = _random_sym(d, 20, seed=20)
    junk = np.triu(M) + np.tril(np.full((d, d), 1e3), -1)
    for a, b in zip(side_eigh(M), side_eigh(junk)):
        np.testing.assert_array_equal(a, b)
    for npos in (0, d):
        lam, V, positive, n_neg = side_eigh(_random_sym(d, npos, seed=1))
        assert lam.size == 0 and V.shape == (d, 0) and n_neg == d - npos
    with pytest.raises(ValueError):
        side_eigh(np.ones((3, 4)))


def test_side_eigh_inverse_iteration_equals_divide_and_conquer():
    """With ``stein_limit`` (sterf + stein for the side's vectors of the tridiagonal) side_eigh returns the
    eigenpairs of the divide-and-conquer path, in double and single precision, on either side; a
    reduced tridiagonal (an exact zero off the diagonal) or a side whose clusters exceed the limit
    falls back to divide and conquer; ``info`` reports what ran and the side's cluster share."""
    d = 90
    for npos, dtype, atol in ((12, np.float64, 1e-10), (70, np.float64, 1e-10), (45, np.float64, 1e-10),
                              (12, np.float32, 2e-4), (70, np.float32, 2e-4)):
        M = _random_sym(d, npos, seed=40 + npos).astype(dtype)
        lam_ref, V_ref, pos_ref, neg_ref = side_eigh(M)
        info: dict = {}
        lam, V, positive, n_neg = side_eigh(M, stein_limit=1.0, info=info)
        assert info["stein"] and (positive, n_neg) == (pos_ref, neg_ref) and V.dtype == dtype
        np.testing.assert_allclose(lam, lam_ref, atol=atol)
        V64 = V.astype(np.float64)
        np.testing.assert_allclose(V64.T @ V64, np.eye(lam.size), atol=atol)
        np.testing.assert_allclose(M.astype(np.float64) @ V64, V64 * lam, atol=10 * atol)
        # the one-sided sums agree (the vectors' signs may differ)
        np.testing.assert_allclose((V64 * lam) @ V64.T, (V_ref.astype(float) * lam_ref) @ V_ref.astype(float).T,
                                   atol=10 * atol)
        assert 0.0 < info["cluster_share"] <= 1.0
    # a block-diagonal matrix: its tridiagonal splits, so divide and conquer runs (same answer)
    B = np.zeros((d, d))
    B[:40, :40] = _random_sym(40, 10, seed=1)
    B[40:, 40:] = _random_sym(50, 20, seed=2)
    info = {}
    lam, V, positive, n_neg = side_eigh(B, stein_limit=1.0, info=info)
    assert not info["stein"] and n_neg == 60 and positive
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(B)[60:], atol=1e-10)
    # a side that is one tight cluster (30 eigenvalues within 1e-6): share 30^2/d^2, above a limit of 0.05
    rng = np.random.default_rng(5)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    ev = np.concatenate([-1.0 - 1e-6 * rng.random(30), rng.uniform(0.5, 2.0, d - 30)])
    C = (Q * ev) @ Q.T
    info = {}
    lam, V, _, n_neg = side_eigh(C, stein_limit=0.05, info=info)
    assert not info["stein"] and n_neg == 30 and info["cluster_share"] == pytest.approx((30 / d) ** 2)
    np.testing.assert_allclose(np.abs(V.T @ V), np.eye(30), atol=1e-10)
    assert side_eigh(C, stein_limit=0.2, info=info)[0].size == 30 and info["stein"]
    assert cluster_share(np.array([]), 1.0, 5) == 0.0
    for npos in (0, d):                                             # definite: an empty side
        lam, V, positive, n_neg = side_eigh(_random_sym(d, npos, seed=3), stein_limit=1.0)
        assert lam.size == 0 and V.shape == (d, 0) and n_neg == d - npos


def test_side_projector_switches_to_inverse_iteration_on_small_clusters():
    """The projector runs inverse iteration from the call after one whose side had small clusters,
    only in double precision, and gives the full decomposition's projection either way; with
    ``stein_limit=None`` it never does."""
    d = 150
    ref = PSDProjector(d)
    for limit, expect in ((lowrank.STEIN_CLUSTER_LIMIT, True), (None, False)):
        side = lowrank._SidePSDProjector(d, stein_limit=limit)
        side.rtol = 1e-9
        for step in range(4):
            v = svec(_random_sym(d, 110, seed=60 + step))           # 40 negative, no clusters
            np.testing.assert_allclose(side(v), ref(v), atol=1e-10)
        assert (side.stein_calls == 3) if expect else side.stein_calls == 0
        side.rtol = 1.0                                             # single precision: never
        side(svec(_random_sym(d, 110, seed=70)))
        assert side.stein_calls == (3 if expect else 0)


def test_share_limit_grows_with_the_order_and_in_single_precision():
    assert mrrr_share_limit(100, False) == pytest.approx(0.14)
    assert mrrr_share_limit(5000, True) == pytest.approx(0.22)
    assert mrrr_share_limit(800, False) < mrrr_share_limit(800, True)


def _optimality(prob, res, R, scale: float) -> None:
    """Primal feasibility, the variational inequality against feasible points, dual cone and
    complementarity of a projection ``res`` (x minimizes 1/2 x'Px + q'x over the feasible set iff
    (Px + q)'(z - x) >= 0 for every feasible z)."""
    x, s, y = res.x, res.s, res.y_dual
    assert R.check(x, tol=1e-6).ok
    assert cone_violation(s, prob.cones) <= 1e-8 * (1 + np.linalg.norm(s))
    assert cone_violation(y, prob.cones, dual=True) <= 1e-8 * (1 + np.linalg.norm(y))
    assert abs(float(s @ y)) <= 1e-6 * (1 + np.linalg.norm(s) * np.linalg.norm(y))
    grad = prob.P @ x + prob.q
    rng = np.random.default_rng(3)
    n = R.readout(3).n
    for _ in range(20):
        pts = rng.standard_normal((4, n))
        pts *= (rng.uniform(0, 1, (4, 1)) / np.linalg.norm(pts, axis=1, keepdims=True))
        z = R.moments_of(pts, rng.dirichlet(np.ones(4)))          # moments of a measure on the ball
        assert float(grad @ (z - x)) >= -1e-6 * scale


@pytest.mark.parametrize(("n", "seed", "noise", "stein"), [(5, 0, 0.05, False), (6, 1, 0.3, True)])
def test_projection_matches_clarabel_and_the_admm(relaxations, n, seed, noise, stein):
    R = relaxations(unit_ball, n)
    prob = compile_projection(R, 3, _noisy_tensor(R, seed, noise))
    ref = solve(prob, solver="clarabel", tol=1e-9, on_fail="return")
    assert max(ref.primal_residual, ref.dual_residual, ref.duality_gap) < 1e-8
    admm = solve(prob, solver="admm", tol=1e-10)
    # side_min_order=1: the side projector on every block (the default starts at order 100)
    res = solve(prob, solver="lowrank", tol=1e-10, side_min_order=1)
    assert res.converged and res.solver == "lowrank"
    assert any(k.startswith("side_calls_") for k in res.info)
    # inverse iteration ran on the largest block where its side has small clusters (the n = 6 input; whether the
    # n = 5 input's side clusters depends on the LAPACK build: numpy 2.4.6's does not); without it (divide and
    # conquer only) the answer is the same
    dmax = max(prob.cones.psd)
    if stein:
        assert res.info[f"side_stein_calls_{dmax}"] > 0
    off = solve(prob, solver="lowrank", tol=1e-10, side_min_order=1, stein_limit=None)
    assert off.converged and off.info[f"side_stein_calls_{dmax}"] == 0
    ro = R.readout(3)
    np.testing.assert_allclose(ro(res.x), ro(off.x), atol=1e-7)
    np.testing.assert_allclose(ro(res.x), ro(admm.x), atol=1e-7)
    np.testing.assert_allclose(ro(res.x), ro(ref.x), atol=1e-5)
    assert res.objective == pytest.approx(ref.objective, rel=1e-7, abs=1e-8)
    _optimality(prob, res, R, scale=1.0 + float(np.linalg.norm(prob.q)))


def test_through_the_set_api_single_precision_phase_included(relaxations):
    R = relaxations(unit_ball, 6)
    Y = _noisy_tensor(R, 5, 0.2)
    P_admm = PseudoMomentSet(R, 3, solver="admm", tol=1e-9).project(Y)
    S = PseudoMomentSet(R, 3, solver="lowrank", tol=1e-9)
    P, info = S.project(Y, return_info=True)
    assert info.converged and info.extra["relaxation_check"]
    np.testing.assert_allclose(P, P_admm, atol=1e-6)
    prob = compile_projection(R, 3, Y)
    res = solve(prob, solver="lowrank", tol=1e-9, side_min_order=1)
    d = max(prob.cones.psd)
    assert res.info[f"side_single_calls_{d}"] >= 1           # the float32 phase ran
    assert res.info[f"side_single_calls_{d}"] < res.info[f"side_calls_{d}"]


def test_caps_limits_and_memory_are_never_reported_as_solved(relaxations):
    R = relaxations(unit_ball, 5)
    prob = compile_projection(R, 3, _noisy_tensor(R, 11, 0.3))
    with pytest.raises(ProjectionError) as err:
        solve(prob, solver="lowrank", tol=1e-12, max_iter=3, side_min_order=1)
    assert err.value.info["status"] == "max_iter" and err.value.info["converged"] is False
    res = solve(prob, solver="lowrank", tol=1e-13, time_limit=1e-9, side_min_order=1, on_fail="return")
    assert res.status == "time_limit" and not res.converged
    with pytest.raises(ResourceLimitError):
        ConicSolver(prob, "lowrank", memory_limit=100)


def test_supports_keep_the_positive_side_projector(relaxations):
    """Linear costs (supports) are unchanged: the low-rank positive-side projector, not the side one."""
    R = relaxations(unit_ball, 14)                  # moment order 120 >= PARTIAL_MIN_ORDER
    sup = lowrank.LowrankBackend(compile_support(R, 3, np.ones((14, 14, 14))), tol=1e-6)
    proj = lowrank.LowrankBackend(compile_projection(R, 3, np.ones((14, 14, 14))), tol=1e-6)
    d = max(sup.psd_proj)
    assert type(sup.psd_proj[d]) is lowrank._PartialPSDProjector
    assert type(proj.psd_proj[d]) is lowrank._SidePSDProjector


def test_smat_roundtrip_of_the_side_projection():
    """The projection is symmetric PSD and the Moreau remainder is negative semidefinite."""
    d = 30
    W = _random_sym(d, 9, seed=2)
    side = lowrank._SidePSDProjector(d)
    side.rtol = 1e-9
    X = smat(side(svec(W)), d)
    assert np.linalg.eigvalsh(X)[0] > -1e-12 and np.linalg.eigvalsh(X - W)[0] > -1e-12


def test_auto_routes_large_projections_to_lowrank_and_supports_to_admm(relaxations, monkeypatch):
    from sosproj.sdp.backends import admm, estimate_memory
    from sosproj.sdp.conic import Cones

    big = Cones(zero=1, psd=(admm.AUTO_PROJECTION_LOWRANK_MIN_ORDER, 31))
    small = Cones(zero=1, psd=(admm.AUTO_PROJECTION_LOWRANK_MIN_ORDER - 1, 31))
    assert admm.auto_route(big, 100) == "lowrank"
    assert admm.auto_route(big, 0) == "admm"                  # supports: unchanged
    assert admm.auto_route(small, 100) == "admm"
    m = big.dim
    assert estimate_memory(m, big, 2 * m, 100, "auto") >= lowrank.LowrankBackend.estimate_memory(m, big, 2 * m, 100)
    # through the solver at a small order (threshold lowered): the answer equals the ADMM's
    monkeypatch.setattr(admm, "AUTO_PROJECTION_LOWRANK_MIN_ORDER", 10)
    R = relaxations(unit_ball, 5)
    prob = compile_projection(R, 3, _noisy_tensor(R, 2, 0.1))
    res = solve(prob, solver="auto", tol=1e-9)
    assert res.solver == "lowrank" and res.converged
    ref = solve(prob, solver="admm", tol=1e-9)
    np.testing.assert_allclose(res.x, ref.x, atol=1e-6)
    sup = ConicSolver(compile_support(R, 3, np.ones((5, 5, 5))), "auto", tol=1e-6)
    assert sup.name == "admm"
    # an iteration cap hands over to SCS, warm-started, as for the ADMM
    capped = ConicSolver(prob, "auto", tol=1e-9, max_iter=3).solve(on_fail="return")
    assert capped.info["attempts"][0] == ("lowrank", "max_iter") and capped.solver == "scs"


def test_warm_started_second_projection_and_bad_settings(relaxations):
    """A workspace reused for a second input (warm start, projector state carried over) still
    converges to the ADMM's answer; a non-positive rho_factor is refused before any work."""
    from sosproj.errors import InvalidParameterError

    R = relaxations(unit_ball, 5)
    S = PseudoMomentSet(R, 3, solver="lowrank", tol=1e-9)
    ref = PseudoMomentSet(R, 3, solver="admm", tol=1e-9)
    for seed in (8, 9):
        Y = _noisy_tensor(R, seed, 0.2)
        P, info = S.project(Y, return_info=True)
        assert info.converged
        np.testing.assert_allclose(P, ref.project(Y), atol=1e-6)
    prob = compile_projection(R, 3, _noisy_tensor(R, 8, 0.2))
    with pytest.raises(InvalidParameterError, match="rho_factor"):
        lowrank.LowrankBackend(prob, rho_factor=0.0)
    for bad in (-0.1, 2.0, "0.03", float("nan")):
        with pytest.raises(InvalidParameterError, match="stein_limit"):
            lowrank.LowrankBackend(prob, stein_limit=bad)

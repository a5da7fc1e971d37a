"""The rough phase of the rank-one supports: the flattening certificate (its start), the
Chebyshev-filtered negative eigenpairs (sdp.rankone_dual) and their capped first stage."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from rankone_cases import WrongCandidate, tensor_case

from sosproj.errors import InvalidParameterError
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, solve
from sosproj.sdp.lowrank_support import TensorRounding, support_route
from sosproj.sdp.rankone_dual import DualFeasibility, NegativeEigenpairs, flattening_certificate
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound


def _flat(R, W):
    prob = compile_support(R, 3, W)
    feas = DualFeasibility(prob)
    T = TensorRounding(R, 3).tensor(prob.q)
    blocks = R.psd_blocks
    return prob, feas, flattening_certificate(feas, prob.q, T, blocks[0].basis, blocks[1].basis)


@pytest.mark.parametrize("n", [3, 6])
def test_flattening_certificate_is_an_exact_dual_certificate_above_the_support(n):
    R, W, _ = tensor_case(n, seed=n)
    prob, feas, fc = _flat(R, W)
    assert fc is not None
    # exactly in the affine set at t = bound, both Gram matrices positive semidefinite
    aZ, ar = feas.affine(fc.Z, fc.yr, feas.rhs(prob.q, fc.bound))
    assert np.allclose(aZ, fc.Z, atol=1e-10) and np.allclose(ar, fc.yr, atol=1e-12)
    assert np.linalg.eigvalsh(fc.Z)[0] >= -1e-10 * fc.bound
    assert np.all(fc.yr >= 0) and np.count_nonzero(fc.yr) == n + 1          # diagonal localizing Gram
    # the certifier (verified lambda_min, trace bound) proves the same upper bound
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    upper = -cert.lower(prob.q, feas.dual_vector(fc.bound, fc.Z, fc.yr))["lower"]
    assert upper == pytest.approx(fc.bound, rel=1e-9)
    # a valid bound, above the exact support (Clarabel), and the closed form a = ||B D^{-1/2}||
    ref = -solve(prob, solver="clarabel", tol=1e-9).objective
    assert ref <= fc.bound + 1e-9 and fc.bound <= 3.0 * ref
    # the closed form: a = ||B D^{-1/2}|| >= max_{|x| = 1} |T(x, ., .)|_F-type bound >= T(x, x, x)
    Ts = TensorRounding(R, 3).tensor(prob.q)
    flat = Ts.reshape(n, n * n)                 # x' flat (x (x) x) = p(x), |x (x) x| = 1 on the sphere
    assert np.linalg.norm(flat, 2) >= fc.bound - 1e-9  # the weighted flattening is never worse
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.standard_normal(n)
        x /= np.linalg.norm(x)
        assert float(np.einsum("ijk,i,j,k->", Ts, x, x, x)) <= fc.bound + 1e-12


def test_flattening_certificate_refuses_other_structures():
    R, W, _ = tensor_case(4, seed=1)
    prob, feas, _ = _flat(R, W)
    T = TensorRounding(R, 3).tensor(prob.q)
    blocks = R.psd_blocks
    assert flattening_certificate(feas, prob.q, T[0], blocks[0].basis, blocks[1].basis) is None   # not cubic
    assert flattening_certificate(feas, prob.q, T, blocks[0].basis[::-1][:5], blocks[1].basis) is None
    assert flattening_certificate(feas, prob.q, T, blocks[0].basis, blocks[1].basis[:3]) is None
    # a cost that is not the cubic's: the certificate is not in the affine set, refused
    assert flattening_certificate(feas, 2.0 * prob.q, T, blocks[0].basis, blocks[1].basis) is None


def test_filtered_negative_eigenpairs_match_the_exact_projection_beyond_the_krylov_cap():
    rng = np.random.default_rng(3)
    d = 200
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([-rng.uniform(0.2, 2.0, 45), rng.uniform(0.2, 6.0, d - 45)])
    ne = NegativeEigenpairs(d, resync=1000, method="filter")
    for step in range(10):
        E = rng.standard_normal((d, d)) * 2e-3
        lam_s = lam + 0.02 * rng.standard_normal(d) * (step > 0)
        M = (Q * lam_s) @ Q.T + (E + E.T)
        got, V = ne(M, 1e-6)
        w, U = np.linalg.eigh(M)
        assert got.size == int(np.sum(w < 0)) > 16                      # above the Krylov block's cap
        exact = (U * np.maximum(w, 0.0)) @ U.T
        # the projection's error is of the order of the residual tolerance
        assert np.linalg.norm(M - (V * got) @ V.T - exact) <= 1e-5 * np.linalg.norm(M)
    assert ne.krylov_accepted >= 7 and ne.exact_calls <= 3      # the filter, not the exact fallback
    # loose tolerance (single precision): the error stays of the order of the requested residual
    got, V = ne(M, 1e-4)
    assert np.linalg.norm(M - (V * got) @ V.T - exact) <= 1e-3 * np.linalg.norm(M)
    # a tolerance the filter cannot meet: the exact fallback, exact to rounding
    got, V = ne(M, 1e-13)
    assert np.linalg.norm(M - (V * got) @ V.T - exact) <= 1e-12 * np.linalg.norm(M)
    with pytest.raises(InvalidParameterError):
        NegativeEigenpairs(d, method="lanczos")


@pytest.mark.parametrize("options", [{"start": "flattening", "eig": "filter"}, {"start": "zero", "eig": "krylov",
                                                                               "dr_gap": 1e-2}])
def test_rankone_newton_starts_agree_with_clarabel(options):
    n = 6
    R, W, _ = tensor_case(n, seed=11)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", 1e-8, 3)
    res = solve(prob, solver="rankone_newton", tol=1e-8, **settings, **options)
    ref = solve(prob, solver="clarabel", tol=1e-9)
    assert res.converged and res.info["cert_relative_gap"] <= 1e-7
    assert abs(res.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    assert (res.info["flattening_bound"] is not None) == (options["start"] == "flattening")
    if res.info["flattening_bound"] is not None:
        assert res.info["flattening_bound"] >= -ref.objective - 1e-9
    with pytest.raises(InvalidParameterError):
        solve(prob, solver="rankone_newton", tol=1e-8, **settings, start="random")


def test_flattening_start_on_a_larger_relaxation_is_certified():
    n = 12
    R = MomentRelaxation(unit_ball(n), 4)
    W = np.random.default_rng(12).standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", 1e-7, 3)
    res = solve(prob, solver="rankone_newton", tol=1e-7, **settings)
    assert res.converged and res.info["cert_relative_gap"] <= 1e-6
    assert res.info["flattening_bound"] >= -res.info["cert_upper"] - 1e-9


def test_wrong_candidate_falls_back_to_lowrank_when_asked():
    n = 5
    R, W, _ = tensor_case(n, seed=7)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", 1e-8, 3)
    settings["rounding"] = WrongCandidate(R, 3)
    ref = solve(prob, solver="clarabel", tol=1e-9)
    res = solve(prob, solver="rankone_newton", tol=1e-8, dr_max_iter=50, rounds=2, fallback="lowrank", **settings)
    assert res.converged and res.info["fallback"] == "lowrank"
    assert abs(res.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    assert res.info["cert_lower"] <= ref.objective + 1e-8 <= res.info["cert_upper"] + 2e-8   # min form
    with pytest.raises(InvalidParameterError):
        solve(prob, solver="rankone_newton", tol=1e-8, fallback="scs", **settings)


def test_auto_routes_large_tensor_supports_to_rankone_newton_with_a_certificate():
    from sosproj.sdp import lowrank_support as ls
    from sosproj.sets import PseudoMomentSet

    n = 30
    R = MomentRelaxation(unit_ball(n), 4)
    assert R.psd_blocks[0].order >= ls.AUTO_RANKONE_NEWTON_MIN_ORDER
    W = np.random.default_rng(30).standard_normal((n, n, n))
    res = PseudoMomentSet(R, 3).support(W, solver="auto", tol=1e-7)
    info = res.info
    assert info["solver"] == "rankone_newton" and info["converged"]
    assert info["certified_relative_gap"] <= 1e-6
    assert info["lower_bound"] <= res.value <= info["upper_bound"]


def test_capped_negative_eigenpairs_return_the_most_negative_and_are_exact_below_the_cap():
    rng = np.random.default_rng(4)
    d = 160
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([-np.linspace(3.0, 0.3, 40), rng.uniform(0.2, 6.0, d - 40)])
    M = (Q * lam) @ Q.T
    ne = NegativeEigenpairs(d, resync=1000, method="filter", cap=10)
    for _ in range(8):                                   # repeated calls refine the capped block
        got, V = ne(M, 1e-8)
        assert 0 < got.size <= 10 and np.all(got < 0)
    # the capped block holds the ten most negative eigenpairs, and the partial projection removes them
    assert np.allclose(got, np.sort(lam)[:10], atol=1e-6)
    assert np.allclose(V.T @ V, np.eye(got.size), atol=1e-8)
    w = np.linalg.eigvalsh(M - (V * got) @ V.T)
    assert int(np.sum(w < -1e-6)) == 30 and w[0] >= np.sort(lam)[10] - 1e-6
    # the uncapped tracker that follows starts from the capped block and finds all 40
    full = ne.uncapped()
    assert full.cap is None and full.X is not None
    for _ in range(4):
        got_all, V_all = full(M, 1e-8)
    assert got_all.size == 40
    exact_all = (Q * np.maximum(lam, 0.0)) @ Q.T
    assert np.linalg.norm(M - (V_all * got_all) @ V_all.T - exact_all) <= 1e-6 * np.linalg.norm(M)
    # at most `cap` negative eigenvalues: the same exact projection as without a cap
    lam2 = np.concatenate([-np.linspace(2.0, 0.5, 6), rng.uniform(0.2, 6.0, d - 6)])
    M2 = (Q * lam2) @ Q.T
    ne2 = NegativeEigenpairs(d, resync=1000, method="filter", cap=10)
    for _ in range(3):
        got2, V2 = ne2(M2, 1e-8)
    exact = (Q * np.maximum(lam2, 0.0)) @ Q.T
    assert got2.size == 6 and np.linalg.norm(M2 - (V2 * got2) @ V2.T - exact) <= 1e-6 * np.linalg.norm(M2)
    for bad in ({"cap": 0, "method": "filter"}, {"cap": 5, "method": "krylov"}):
        with pytest.raises(InvalidParameterError):
            NegativeEigenpairs(d, **bad)


def test_capped_rough_stage_agrees_with_clarabel_and_hands_over_when_it_misses_its_gap(monkeypatch):
    from sosproj.sdp.backends import rankone_newton as rn

    n = 8
    R, W, _ = tensor_case(n, seed=3)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", 1e-8, 3)
    ref = solve(prob, solver="clarabel", tol=1e-9)
    # default ("auto"): no cap below DR_CAP_MIN_ORDER
    res = solve(prob, solver="rankone_newton", tol=1e-8, **settings)
    assert res.info["dr_capped_status"] == "off" and res.info["dr_capped_iterations"] == 0
    # a cap of 4 negative eigenpairs per step in the first stage, then full projections
    capped = solve(prob, solver="rankone_newton", tol=1e-8, dr_cap=4, **settings)
    assert capped.converged and capped.info["cert_relative_gap"] <= 1e-7
    assert capped.info["dr_capped_status"] == "certified" and capped.info["dr_capped_iterations"] > 0
    assert abs(capped.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    # a first-stage goal it cannot reach: it stops at half the cap, the full projections take over
    missed = solve(prob, solver="rankone_newton", tol=1e-8, dr_cap=4, dr_cap_gap=1e-14, dr_max_iter=40,
                   **settings)
    assert missed.info["dr_capped_status"] == "max_iter" and missed.info["dr_capped_iterations"] == 20
    assert missed.info["dr_iterations"] > 20
    assert missed.info["cert_lower"] <= ref.objective + 1e-8
    if missed.converged:
        assert abs(missed.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    # "auto" depends on the moment order only (public): the same cap for two tensors of one size
    monkeypatch.setattr(rn, "DR_CAP_MIN_ORDER", 10)
    caps = []
    for seed in (1, 2):
        _, W2, _ = tensor_case(n, seed=seed)
        b = rn.RankOneNewtonBackend(compile_support(R, 3, W2), tol=1e-8, **settings)
        caps.append(b._cap())
    assert caps[0] == caps[1] == int(np.ceil(np.sqrt(45.0)))
    for bad in ({"dr_cap": 0}, {"dr_cap": "many"}, {"dr_cap": True}, {"dr_cap_gap": 0.0}):
        with pytest.raises(InvalidParameterError):
            solve(prob, solver="rankone_newton", tol=1e-8, **settings, **bad)


def test_rough_phase_eigenpair_tolerance_follows_rtol_factor_and_stays_certified(monkeypatch):
    """``DualFeasibility.run(rtol_factor=...)`` scales the eigenpair tolerance with the step, and
    ``rankone_newton``'s ``dr_rtol_factor`` reaches it; a looser tolerance still ends certified."""
    from sosproj.sdp import rankone_dual as rd
    from sosproj.sdp.backends import rankone_newton as rn

    n = 8
    R, W, _ = tensor_case(n, seed=3)
    prob = compile_support(R, 3, W)
    feas = DualFeasibility(prob)
    monkeypatch.setattr(rd, "RTOL_MAX", 10.0)                 # no cap: the tolerance is factor * step

    class Recorder(NegativeEigenpairs):
        def __call__(self, M, rtol):
            self.seen.append(rtol)
            return super().__call__(M, rtol)

    seen = {}
    for factor in (0.05, 0.5):
        rec = Recorder(feas.N, method="filter")
        rec.seen = []
        feas.run(prob.q, 1.5, max_iter=3, neg=rec, rtol_factor=factor)
        seen[factor] = rec.seen
    # the same first step (rtol 1e-3 before any step), then tolerances tenfold apart
    assert seen[0.05][0] == seen[0.5][0] == 1e-3
    assert seen[0.5][1] == pytest.approx(10.0 * seen[0.05][1], rel=1e-12)
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(InvalidParameterError):
            feas.run(prob.q, 1.5, max_iter=1, rtol_factor=bad)
    monkeypatch.undo()

    _, settings = support_route(R, "rankone_newton", 1e-8, 3)
    used = []
    orig = DualFeasibility.run

    def spy(self, *args, **kw):
        used.append(kw.get("rtol_factor"))
        return orig(self, *args, **kw)

    monkeypatch.setattr(DualFeasibility, "run", spy)
    ref = solve(prob, solver="clarabel", tol=1e-9)
    loose = solve(prob, solver="rankone_newton", tol=1e-8, dr_cap=4, dr_rtol_factor=1.0, **settings)
    assert used and all(u == 1.0 for u in used)
    assert loose.converged and loose.info["cert_relative_gap"] <= 1e-7
    assert abs(loose.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    # "auto": the old factor below DR_CAP_MIN_ORDER, DR_RTOL_FACTOR from it on (the moment order only)
    for min_order, expect in ((rn.DR_CAP_MIN_ORDER, rd.RTOL_FACTOR), (10, rn.DR_RTOL_FACTOR)):
        monkeypatch.setattr(rn, "DR_CAP_MIN_ORDER", min_order)
        used.clear()
        auto = solve(prob, solver="rankone_newton", tol=1e-8, **settings)
        assert auto.converged and used and all(u == expect for u in used)
    assert rd.RTOL_FACTOR != rn.DR_RTOL_FACTOR
    for bad in ({"dr_rtol_factor": 0.0}, {"dr_rtol_factor": -0.1}, {"dr_rtol_factor": True},
                {"dr_rtol_factor": "loose"}, {"dr_rtol_factor": float("inf")}):
        with pytest.raises(InvalidParameterError):
            solve(prob, solver="rankone_newton", tol=1e-8, **settings, **bad)


def test_auto_cap_is_off_from_the_large_order_threshold_and_stays_certified(monkeypatch):
    """``dr_cap="auto"`` caps the first stage only for moment orders in [DR_CAP_MIN_ORDER, DR_CAP_MAX_ORDER)
    (issue 15 session 28: at order 5,151 the full projections need far fewer steps); above the window the
    rough phase runs uncapped and the answer is the same certified support: its bound dominates power-method
    points and Clarabel's optimum, and agrees with it to the certified gap."""
    from sosproj.sdp.backends import rankone_newton as rn

    n = 8                                                      # moment order 45
    R, W, _ = tensor_case(n, seed=4)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", 1e-8, 3)
    ref = solve(prob, solver="clarabel", tol=1e-9)
    monkeypatch.setattr(rn, "DR_CAP_MIN_ORDER", 10)
    for max_order, capped in ((rn.DR_CAP_MAX_ORDER, True), (45, False), (40, False)):
        monkeypatch.setattr(rn, "DR_CAP_MAX_ORDER", max_order)
        b = rn.RankOneNewtonBackend(prob, tol=1e-8, **settings)
        assert (b._cap() == int(np.ceil(np.sqrt(45.0)))) if capped else (b._cap() is None)
        res = solve(prob, solver="rankone_newton", tol=1e-8, **settings)
        assert res.converged and res.info["cert_relative_gap"] <= 1e-7
        assert (res.info["dr_capped_status"] != "off") == capped
        assert (res.info["dr_capped_iterations"] > 0) == capped
        upper = -res.info["cert_lower"]
        assert upper >= -ref.objective - 1e-8                     # above the exact support
        assert abs(res.objective - ref.objective) <= 1e-6 * abs(ref.objective)
        rng = np.random.default_rng(2)
        for _ in range(20):                                       # power-method points on the sphere
            x = rng.standard_normal(n)
            x /= np.linalg.norm(x)
            for _ in range(50):
                g = np.einsum("ijk,j,k->i", W + W.transpose(1, 0, 2) + W.transpose(2, 1, 0), x, x)
                x = g / np.linalg.norm(g)
            assert float(np.einsum("ijk,i,j,k->", W, x, x, x)) <= upper + 1e-12
    # an explicit count still caps above the window
    monkeypatch.setattr(rn, "DR_CAP_MAX_ORDER", 40)
    res = solve(prob, solver="rankone_newton", tol=1e-8, dr_cap=4, **settings)
    assert res.info["dr_capped_iterations"] > 0 and res.info["cert_relative_gap"] <= 1e-7


def test_lowest_is_a_ritz_estimate_of_lambda_min_and_settles_a_lost_block_exactly():
    """``NegativeEigenpairs.lowest`` (the capped stage's lambda_min screen, session 29): within 1% of lambda_min
    and never below it (a Ritz value, single-precision products); on a PSD matrix 0; when the matrix moved so that
    the warm block has no negative Ritz value, the exact decomposition decides (not a false 0)."""
    rng = np.random.default_rng(29)
    d = 200
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam = np.concatenate([-np.linspace(9.0, 0.2, 60), rng.uniform(0.1, 40.0, d - 60)])
    M = (Q * lam) @ Q.T
    ne = NegativeEigenpairs(d, resync=1000, method="filter", cap=1)
    low = ne.lowest(M)
    tiny = 1e-5 * np.linalg.norm(M)
    assert -9.0 - tiny <= low <= -9.0 * 0.99
    # a PSD matrix: no negative part
    P = (Q * np.abs(lam)) @ Q.T
    assert NegativeEigenpairs(d, resync=1000, method="filter", cap=1).lowest(P) == 0.0
    # the warm block from M, then a matrix whose negative eigenvectors are elsewhere: a single filter pass
    # may miss them; lowest must not report 0
    Q2, _ = np.linalg.qr(rng.standard_normal((d, d)))
    lam2 = np.concatenate([[-0.5], rng.uniform(0.1, 40.0, d - 1)])
    M2 = (Q2 * lam2) @ Q2.T
    probe = copy.deepcopy(ne)
    assert probe(M2, 1e-3)[0].size == 0       # one filter pass from the old block: no negative Ritz value
    calls = ne.exact_calls
    low2 = ne.lowest(M2)
    assert -0.5 - tiny <= low2 <= -0.5 * 0.99
    assert ne.exact_calls == calls + 1        # settled by the exact decomposition


def test_affine_projection_into_a_work_matrix_is_the_same_projection():
    """``DualFeasibility.affine(out=)`` (session 29: no fresh N x N array per step) returns the same numbers as
    without it, idempotent and in the affine set; an ``out`` that is ``Z`` itself is not overwritten."""
    R, W, _ = tensor_case(6, seed=5)
    prob = compile_support(R, 3, W)
    feas = DualFeasibility(prob)
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((feas.N, feas.N))
    Z = Z + Z.T
    yr = rng.standard_normal(len(feas.rest_rows))
    rhs = feas.rhs(prob.q, 1.3)
    aZ, ar = feas.affine(Z, yr, rhs)
    buf = np.full((feas.N, feas.N), np.nan)
    bZ, br = feas.affine(Z, yr, rhs, out=buf)
    assert bZ is buf and np.array_equal(aZ, bZ) and np.array_equal(ar, br)
    Z0 = Z.copy()
    cZ, _ = feas.affine(Z, yr, rhs, out=Z)
    assert cZ is not Z and np.array_equal(Z, Z0) and np.array_equal(cZ, aZ)
    # in the affine set: K(aZ, ar) = rhs
    assert np.allclose(feas._K(aZ, ar), rhs, atol=1e-9 * max(1.0, float(np.abs(rhs).max())))


@pytest.mark.parametrize("order", ["C", "F"])
def test_in_place_outer_product_update_matches_numpy(order):
    from sosproj.sdp.rankone_dual import _subtract_outer

    rng = np.random.default_rng(2)
    M = rng.standard_normal((70, 70))
    V = np.asarray(rng.standard_normal((70, 9)), order=order)[:, 2:7]
    lam = rng.standard_normal(5)
    ref = M - (V * lam) @ V.T
    got = M.copy()
    _subtract_outer(got, V * lam, V)
    assert np.allclose(got, ref, rtol=0, atol=1e-13)
    single = M.astype(np.float32)                    # not float64: numpy's product
    _subtract_outer(single, (V * lam).astype(np.float32), V.astype(np.float32))
    assert np.allclose(single, ref, atol=1e-4)


@pytest.mark.parametrize("screen", ["one", "all"])
def test_capped_stage_screens_agree_with_clarabel(screen):
    """The capped stage's estimate from the one-eigenpair screen (``dr_cap_screen="one"``, default since session
    29) or from every negative eigenpair (``"all"``): certified, Clarabel's value, the bounds around it."""
    n = 8
    R, W, _ = tensor_case(n, seed=7)
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", 1e-8, 3)
    ref = solve(prob, solver="clarabel", tol=1e-9)
    res = solve(prob, solver="rankone_newton", tol=1e-8, dr_cap=4, dr_cap_screen=screen, **settings)
    assert res.converged and res.info["cert_relative_gap"] <= 1e-7
    assert res.info["dr_capped_status"] == "certified" and res.info["dr_capped_iterations"] > 0
    assert abs(res.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    # min form: the certified lower bound is below the optimum and below the returned feasible point's value
    assert res.info["cert_lower"] <= ref.objective + 1e-8 <= res.info["cert_upper"] + 2e-8
    assert res.info["cert_lower"] <= res.objective + 1e-12
    with pytest.raises(InvalidParameterError):
        solve(prob, solver="rankone_newton", tol=1e-8, dr_cap_screen="some", **settings)


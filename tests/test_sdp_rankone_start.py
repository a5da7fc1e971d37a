"""The rough phase of the rank-one supports: the flattening certificate (its start) and the
Chebyshev-filtered negative eigenpairs (sdp.rankone_dual)."""

from __future__ import annotations

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

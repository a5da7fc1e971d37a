"""The cube step's starting point (sosproj.sdp.cube_init), its polished certificate (cube_gap.polish_dual /
best_certificate) and the inverse-iteration PSD projection of the cube ADMM: against closed forms, a tightly
converged ADMM and the dense PSD projection."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sosproj.data.contingency import SubsetIndex
from sosproj.errors import InvalidParameterError
from sosproj.sdp.cones import project_psd_dense
from sosproj.sdp.cube_gap import best_certificate, certified_distance, polish_dual
from sosproj.sdp.cube_init import cumulant_completion
from sosproj.sdp.cube_tables_admm import CubeTablesProjector, _project_psd_side
from tests.test_cube_gap import _problem


@pytest.fixture(scope="module")
def reference():
    n, ff = _problem()
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000)
    f_ref, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"]
    return n, ff, f_ref


def _a_dist(proj: CubeTablesProjector, f: np.ndarray, h: np.ndarray) -> float:
    return float(np.sqrt(np.sum(proj.a * (f - h) ** 2)))


def _moments(P: np.ndarray, index: SubsetIndex) -> np.ndarray:
    """Exact +-1 Fourier moments E[prod z_i] of the distribution P over {0,1}^n (row-major cells)."""
    n = index.n
    cells = ((np.arange(2 ** n)[:, None] >> np.arange(n)[::-1]) & 1).astype(float)
    z = 1.0 - 2.0 * cells
    out = np.empty(len(index))
    for u, (row, s) in enumerate(zip(index.members, index.sizes)):
        out[u] = float(P @ np.prod(z[:, row[:s]], axis=1)) if s else float(P.sum())
    return out


def test_cumulant_closure_is_exact_for_independent_and_gaussian_like_data() -> None:
    """Independent attributes: every joint cumulant of order >= 2 vanishes, so the closure returns the
    true order-3 and order-4 moments; measured entries are never changed."""
    idx = SubsetIndex(5, 4)
    p = np.array([0.1, 0.35, 0.5, 0.8, 0.6])                      # P(x_i = 1)
    cells = ((np.arange(32)[:, None] >> np.arange(5)[::-1]) & 1).astype(float)
    P = np.prod(np.where(cells == 1, p, 1 - p), axis=1)
    true = _moments(P, idx)
    measured = idx.sizes <= 2
    start = np.where(measured, true, 0.0)
    out = cumulant_completion(idx, start, measured)
    np.testing.assert_allclose(out, true, atol=1e-14)
    # with the order-3 moments measured (and perturbed) they are kept, and enter the order-4 values
    measured3 = idx.sizes <= 3
    start3 = np.where(measured3, true + 0.01 * (idx.sizes == 3), 0.0)
    out3 = cumulant_completion(idx, start3, measured3)
    np.testing.assert_array_equal(out3[measured3], start3[measured3])
    assert np.max(np.abs(out3[idx.sizes == 4] - true[idx.sizes == 4])) > 1e-4
    assert np.all(np.abs(out3) <= 1.0)


def test_cumulant_closure_clips_and_refuses_bad_shapes() -> None:
    idx = SubsetIndex(4, 4)
    f = np.zeros(len(idx))
    f[0] = 1.0
    f[1:11] = 0.99                                                # pairs and singletons near 1 ...
    f[5:11] = -0.99                                               # ... inconsistent: the closure overshoots
    out = cumulant_completion(idx, f, idx.sizes <= 2)
    assert np.all(np.abs(out) <= 1.0) and np.any(np.abs(out[idx.sizes >= 3]) == 1.0)
    with pytest.raises(InvalidParameterError):
        cumulant_completion(idx, f[:-1], idx.sizes <= 2)
    with pytest.raises(InvalidParameterError):
        CubeTablesProjector(4, 4, np.ones(5), init="gaussian")


def test_cumulant_start_reaches_the_same_projection(reference) -> None:
    """The start changes the path, not the problem: both starts reach the tight reference."""
    n, ff, f_ref = reference
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-9, max_iter=100000, init="cumulant")
    f, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"]
    meas = proj.a > 0
    assert _a_dist(proj, f, f_ref) <= 1e-5 * math.sqrt(np.count_nonzero(meas))
    assert _a_dist(proj, f, f_ref) <= info["certified_distance"] + 1e-7
    # the warm-start path takes the same start
    f2, info2 = proj.solve(ff.g, warm_start=True, on_fail="raise")
    assert info2["converged"] and _a_dist(proj, f2, f_ref) <= 1e-5 * math.sqrt(np.count_nonzero(meas))


def test_cumulant_start_kkt(reference) -> None:
    """KKT conditions of the tight run from the cumulant start, with ADMM's multiplier S = -rho L: M(f) and S
    PSD, stationarity a (f - g) = M^*(S) on the measured moments and M^*(S) = 0 on the unmeasured ones,
    complementarity <S, M(f)> = 0 (all to the tolerance's order, relative to the multiplier's size)."""
    n, ff, _ = reference
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000, init="cumulant")
    f, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    L, rho = proj._warm
    S = -rho * L
    scale = max(1.0, float(np.abs(S).max()))
    assert np.linalg.eigvalsh(proj.moment_matrix(f)).min() >= -1e-12
    assert np.linalg.eigvalsh(S).min() >= -1e-9 * scale
    gg = np.zeros(proj.n_moments)
    gg[:ff.g.size] = ff.g
    s = proj.adjoint(S)
    meas = proj.a > 0
    meas[0] = False
    rest = proj.a == 0
    rest[0] = False
    np.testing.assert_allclose(proj.a[meas] * (f[meas] - gg[meas]), s[meas], atol=1e-8 * scale)
    assert np.abs(s[rest]).max() <= 1e-8 * scale
    assert abs(float(np.sum(S * proj.moment_matrix(f)))) <= 1e-8 * scale


@pytest.mark.parametrize("iters", [20, 80])
def test_polished_certificate_is_valid_and_tighter(reference, iters: int) -> None:
    """Every polished multiplier is PSD and its bound is still at least the true distance; the best bound is
    never above the plain one, and the polishing shrinks the unmeasured moments' s_U."""
    n, ff, f_ref = reference
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=iters)
    f, _ = proj.solve(ff.g, warm_start=False, on_fail="return")
    L, rho = proj._warm
    S = -rho * L
    gg = np.zeros(proj.n_moments)
    gg[:ff.g.size] = ff.g
    true = _a_dist(proj, f, f_ref)
    rest = proj.a == 0
    rest[0] = False
    box0 = float(np.abs(proj.adjoint(S)[rest]).sum())
    polished = polish_dual(proj, S, 6)
    assert len(polished) == 6
    for S2 in polished:
        assert np.linalg.eigvalsh(S2).min() >= -1e-10 * max(1.0, np.abs(S2).max())
        assert true <= certified_distance(proj, f, gg, S2) + 1e-7
    assert float(np.abs(proj.adjoint(polished[-1])[rest]).sum()) < box0
    plain = certified_distance(proj, f, gg, S)
    best = best_certificate(proj, f, gg, S, 6)
    assert true <= best + 1e-7 and best <= plain
    # with a target it stops as soon as the bound is below it (here: at once)
    assert best_certificate(proj, f, gg, S, 6, target=plain) == plain


def test_inverse_iteration_projection_matches_the_dense_one() -> None:
    rng = np.random.default_rng(4)
    for d in (2, 7, 40):
        B = rng.standard_normal((d, d))
        Y = B + B.T
        X_ref = project_psd_dense(Y)[0]
        for limit in (None, 1.0):
            info: dict = {}
            X = _project_psd_side(Y, limit, info)
            np.testing.assert_allclose(X, X_ref, atol=1e-10 * max(1.0, np.abs(Y).max()))
            assert "cluster_share" in info

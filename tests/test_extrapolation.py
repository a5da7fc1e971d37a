"""The extrapolation of unmeasured residual sets (averaged max-entropy interactions) and the dual LNN projection
(MarginalProjector.solve_dual) against cvxpy/Clarabel, the ADMM path and their optimality conditions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import extrapolation as ex
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency, PrivacySpec
from sosproj.sdp.marginal_admm import MarginalProjector

cp = pytest.importorskip("cvxpy")


def _data(sizes, m, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, size=m)
    cols = [np.where(z == 0, rng.integers(0, s, size=m), (z + rng.integers(0, 2, size=m)) % s) for s in sizes]
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


def _negative_residuals(seed=0):
    """Residuals of a small 3-way layout whose tables have negative cells (noisy true tables)."""
    sizes = (2, 3, 3, 2)
    lay = ResidualLayout(sizes, all_k_way(4, 3))
    ds = _data(sizes, 60, seed)
    r = lay.residuals_of_tables([ds.marginal(w) for w in lay.workload])
    rng = np.random.default_rng(seed + 10)
    z = rng.normal(size=lay.res_size) * 6.0
    lay.center(z)
    z[lay.empty_pos] = 0.0
    r = r + z
    assert lay.forward(r).min() < -0.5
    return lay, r


def _cvxpy_projection(lay: ResidualLayout, w_sets: np.ndarray, r: np.ndarray) -> np.ndarray:
    P = np.stack([lay.center(e) for e in np.eye(lay.res_size)], axis=1)      # onto the residual subspaces
    B = np.stack([lay.forward(e) for e in P.T], axis=1)                      # small: dense is fine
    delta = cp.Variable(lay.res_size)
    c = r + P @ delta
    w = lay.expand(w_sets)
    w[lay.empty_pos] = 0.0
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum(cp.multiply(w, cp.square(c - r)))),
                      [B @ c >= 0, c[lay.empty_pos] == r[lay.empty_pos]])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return r + P @ np.asarray(delta.value)


@pytest.mark.parametrize("metric", ["table", "weighted"])
def test_solve_dual_matches_clarabel_and_certifies(metric):
    lay, r = _negative_residuals()
    w = mp.table_metric(lay)
    if metric == "weighted":       # 1 / sigma_A^2-like weights, L = max d_A / w_A > 1
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    ref = _cvxpy_projection(lay, w, r)
    proj = MarginalProjector(lay, w, tol=1e-6, max_iter=20000)
    out, info = proj.solve_dual(r, on_fail="raise")
    assert info["converged"] and info["theta"] <= 1e-6
    assert abs(info["complementarity"]) <= 1e-6                 # KKT: lam^T B c <= tol * objective
    tabs = lay.forward(out)
    assert tabs.min() >= -1e-12 and np.isclose(out[lay.empty_pos], r[lay.empty_pos])
    # the certificate bounds the weighted distance: 1/2 ||out - c*||_W^2 <= gap
    d = out - ref
    d[lay.empty_pos] = 0.0
    dist2 = float(d @ (lay.expand(w) * d))
    assert dist2 <= 2 * info["duality_gap"] + 1e-6
    assert np.allclose(tabs, lay.forward(ref), atol=1e-2 * max(1.0, np.abs(tabs).max()))


def test_solve_dual_agrees_with_admm_path():
    lay, r = _negative_residuals(seed=3)
    w = mp.table_metric(lay)
    a, ia = MarginalProjector(lay, w, tol=1e-7, max_iter=50000).solve(r, on_fail="raise")
    b, ib = MarginalProjector(lay, w, tol=1e-7, max_iter=50000).solve_dual(r, on_fail="raise")
    assert ia["converged"] and ib["converged"]
    assert np.allclose(lay.forward(a), lay.forward(b), atol=1e-2)


def test_solve_dual_reports_the_cap_and_refuses_what_it_cannot_do():
    lay, r = _negative_residuals()
    out, info = MarginalProjector(lay, mp.table_metric(lay), tol=1e-9, max_iter=3).solve_dual(r, on_fail="return")
    assert info["iterations"] == 3 and not info["converged"]
    assert lay.forward(out).min() >= -1e-12                   # still non-negative and consistent (mixed)
    with pytest.raises(Exception, match="did not reach"):
        MarginalProjector(lay, mp.table_metric(lay), tol=1e-9, max_iter=3).solve_dual(r, on_fail="raise")
    with pytest.raises(InvalidParameterError):
        MarginalProjector(lay, np.zeros(len(lay.residual_sets))).solve_dual(r)
    pair = ResidualLayout((2, 3, 2), all_k_way(3, 2))
    with pytest.raises(InvalidParameterError):
        MarginalProjector(pair, mp.table_metric(pair), psd=True).solve_dual(np.zeros(pair.res_size))


def test_shared_unmeasured_pair_gets_the_average_of_its_tables_interactions():
    """Noise-free tables; unmeasured: the pair (0, 1) (shared by two 3-way tables) and its supersets. The
    measured residuals are unchanged, each unmeasured 3-way set gets its own maximum-entropy table's
    interaction, the pair the average of the two tables' interactions, and a realizable layout has no
    unmet margin."""
    sizes = (3, 4, 2, 5)
    ds = _data(sizes, 400, seed=2)
    lay = ResidualLayout(sizes, all_k_way(4, 3))
    true = lay.residuals_of_tables([ds.marginal(w) for w in lay.workload])
    un = [A for A in lay.residual_sets if {0, 1} <= set(A)]
    measured = [A for A in lay.residual_sets if A not in un]
    r = true.copy()
    for A in un:
        lay.residual(r, A)[...] = 0.0
    tables = {A: lay.marginal(true, A) for A in ex.maximal_sets(measured)}
    out, info = ex.extrapolate_unmeasured(lay, r, measured, tables)
    assert info["ipf_unmet"] < 1e-9
    for A in measured:
        assert np.allclose(lay.residual(out, A), lay.residual(true, A))
    pair = []
    for W in [(0, 1, 2), (0, 1, 3)]:
        margins = {(0, 2): lay.marginal(true, (W[0], W[2])), (1, 2): lay.marginal(true, (W[1], W[2]))}
        P = ex.ipf_table(tuple(sizes[x] for x in W), margins, 400.0)
        assert np.allclose(lay.residual(out, W), ex.top_residual(P), atol=1e-8)
        pair.append(ex.top_residual(P.sum(axis=2)))
    assert np.allclose(lay.residual(out, (0, 1)), (pair[0] + pair[1]) / 2, atol=1e-8)


def test_release_reports_exact_or_projected_extrapolation():
    """The default release on small categorical data with skipped sets: consistent, non-negative, summing to
    m; info says whether the extrapolation needed the projection, and ``converged`` is that step's."""
    sizes = (3, 4, 2, 9, 5)
    ds = _data(sizes, 300, seed=1)
    rel = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0)
    ri = rel.info["reconstruction_info"]
    assert rel.info["unmeasured_sets"] and ri["extrapolation"] == "max-entropy"
    if ri["extrapolation_exact"]:
        assert "extrapolation_projection" not in ri
    else:
        ep = ri["extrapolation_projection"]
        assert ep["solver"] == "marginal-dual-fista" and ri["converged"] == (ep["converged"] and ri["converged"])
    tabs = [rel.table(w) for w in itertools.combinations(range(5), 3)]
    assert min(t.min() for t in tabs) >= -1e-9 and all(np.isclose(t.sum(), 300) for t in tabs)


def test_unrealizable_margins_are_projected_and_reported():
    """Pairwise-consistent 2-way tables of three binary attributes with no joint table (a = b, b = c, a != c):
    the extrapolation of the unmeasured triple needs the projection, which converges; the release is
    consistent, non-negative and sums to m."""
    lay = ResidualLayout((2, 2, 2), all_k_way(3, 3))
    eq = np.array([[5.0, 0.0], [0.0, 5.0]])
    ne = np.array([[0.0, 5.0], [5.0, 0.0]])
    r = np.zeros(lay.res_size)
    r[lay.empty_pos] = 10.0
    for A, T in [((0, 1), eq), ((1, 2), eq), ((0, 2), ne)]:
        lay.residual(r, A)[...] = ex.top_residual(T)
    sig = np.array([0.0 if not A else (np.inf if len(A) == 3 else 1.0) for A in lay.residual_sets])
    spec = PrivacySpec(epsilon=1.0, delta=1e-6, adjacency=Adjacency.REPLACE_ONE, sensitivity=1.0)
    meas = mp.Measurement(lay, r, sig, spec, "auto", 10)
    out, info = mp._reconstruct_skipped(meas, "lnn", {"tol": 1e-4, "max_iter": 20000})
    assert info["ipf_unmet"] > 0.1 and "extrapolation_projection" in info
    assert info["extrapolation_projection"]["converged"] and info["converged"]
    t = lay.marginal(out, (0, 1, 2))
    assert t.min() >= 0 and np.isclose(t.sum(), 10.0)
    for A in itertools.combinations(range(3), 2):
        assert np.allclose(lay.marginal(out, A), t.sum(axis=tuple(set(range(3)) - set(A))))


def test_ipf_stall_stops_unrealizable_margins_early_and_leaves_realizable_ones_alone():
    """Unrealizable pairwise margins (a = b, b = c, a != c): IPF settles at a positive gap; with ``stall`` it
    stops after ``STALL_MIN_CYCLES`` cycles at (nearly) the same gap as after 200. Realizable margins of a
    random positive table: ``stall`` changes nothing (IPF shrinks the gap by far more than 1% a cycle)."""
    eq = np.array([[5.0, 0.0], [0.0, 5.0]]) + 0.5
    ne = np.array([[0.0, 5.0], [5.0, 0.0]]) + 0.5
    margins = {(0, 1): eq, (1, 2): eq, (0, 2): ne}
    T200, gap200 = ex.ipf_fit((2, 2, 2), margins, 12.0)
    T_st, gap_st = ex.ipf_fit((2, 2, 2), margins, 12.0, stall=ex.EXTRAPOLATION_STALL)
    T_min, gap_min = ex.ipf_fit((2, 2, 2), margins, 12.0, max_cycles=ex.STALL_MIN_CYCLES)
    assert gap200 > 1.0 and abs(gap_st - gap200) <= 0.01 * gap200
    assert np.array_equal(T_st, T_min) and not np.array_equal(T_st, T200)   # stopped at the first allowed cycle
    rng = np.random.default_rng(0)
    P = rng.gamma(1.0, size=(3, 4, 5)) * 10
    mg = {(0, 1): P.sum(axis=2), (0, 2): P.sum(axis=1), (1, 2): P.sum(axis=0)}
    T1, g1 = ex.ipf_fit(P.shape, mg, P.sum())
    T2, g2 = ex.ipf_fit(P.shape, mg, P.sum(), stall=ex.EXTRAPOLATION_STALL)
    assert np.array_equal(T1, T2) and g1 <= 1e-8 * P.sum()

    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(InvalidParameterError, match="stall"):
            ex.ipf_fit(P.shape, mg, P.sum(), stall=bad)


@pytest.mark.parametrize("metric", ["table", "weighted"])
def test_solve_dual_fused_path_equals_the_composition_path(metric, monkeypatch):
    """The dual loop on the fused normal map (``ResidualLayout.fused_normal``) and on adjoint + forward run the
    same iterates up to round-off: same iterations, same answer."""
    lay, r = _negative_residuals(seed=5)
    assert lay.fused_normal
    w = mp.table_metric(lay)
    if metric == "weighted":
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    a, ia = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise")
    monkeypatch.setattr(ResidualLayout, "fused_normal", property(lambda self: False))
    b, ib = MarginalProjector(lay, w, tol=1e-6, max_iter=20000).solve_dual(r, on_fail="raise")
    assert ia["converged"] and ib["converged"] and ia["iterations"] == ib["iterations"]
    assert np.allclose(lay.forward(a), lay.forward(b), atol=1e-8 * max(1.0, np.abs(lay.forward(b)).max()))


def test_solve_dual_stops_by_the_exact_test_not_by_the_fused_trigger(monkeypatch):
    """The fused map only triggers the stopping test; the test itself recomputes ``c(lam)`` exactly. A trigger that
    always claims feasibility must not make an unconverged answer look converged."""
    lay, r = _negative_residuals(seed=5)
    w = mp.table_metric(lay)
    orig = ResidualLayout.normal_apply

    def lying(self, y, inv_w, *, alpha=0.0, beta=1.0, shift=None, out=None, compiled=None):
        t = orig(self, y, inv_w, alpha=alpha, beta=beta, shift=shift, out=out, compiled=compiled)
        if alpha == 0.0:                      # the trigger's call: claim every cell is non-negative
            t[...] = np.abs(t)
        return t

    _ref, full = MarginalProjector(lay, w, tol=1e-9, max_iter=20000).solve_dual(r, on_fail="return")
    n = full["iterations"]
    assert full["converged"] and n > 20
    monkeypatch.setattr(ResidualLayout, "normal_apply", lying)
    _same, info = MarginalProjector(lay, w, tol=1e-9, max_iter=20000).solve_dual(r, on_fail="return")
    assert info["converged"] and info["iterations"] == n       # the trigger never changes the iterates
    out, info = MarginalProjector(lay, w, tol=1e-9, max_iter=n - 10).solve_dual(r, on_fail="return")
    assert not info["converged"] and info["iterations"] == n - 10   # the exact test failed there
    assert lay.forward(out).min() >= -1e-12          # still non-negative (mixed), but reported unconverged


@pytest.mark.parametrize("metric", ["table", "weighted"])
def test_solve_dual_primal_average_matches_clarabel_and_its_test(metric):
    """The averaged primal point (``average=True``, the default) and the last iterate (``average=False``) solve the
    same problem: both within their certified distance of Clarabel's answer, feasible, and the averaged point's
    stopping test (relative gap of the unmixed point against g(lam)) passed."""
    lay, r = _negative_residuals(seed=1)
    w = mp.table_metric(lay)
    if metric == "weighted":
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    ref = _cvxpy_projection(lay, w, r)
    for average in (True, False):
        out, info = MarginalProjector(lay, w, tol=1e-7, max_iter=50000).solve_dual(r, on_fail="raise",
                                                                                    average=average)
        assert info["converged"] and info["primal_average"] is average and abs(info["complementarity"]) <= 1e-7
        tabs = lay.forward(out)
        assert tabs.min() >= -1e-12 and np.isclose(out[lay.empty_pos], r[lay.empty_pos])
        d = out - ref
        d[lay.empty_pos] = 0.0
        assert float(d @ (lay.expand(w) * d)) <= 2 * info["duality_gap"] + 1e-6
        assert np.allclose(tabs, lay.forward(ref), atol=1e-3 * max(1.0, np.abs(tabs).max()))


@pytest.mark.parametrize("metric", ["table", "weighted"])
def test_solve_dual_compiled_matches_clarabel(metric):
    """The compiled dual step (``compiled=True``, forced: small layouts switch to it late) against Clarabel: within
    the certified distance, feasible; skipped where numba is missing."""
    from sosproj.data import fused_kernel

    if not fused_kernel.available():
        pytest.skip("numba is not installed")
    lay, r = _negative_residuals(seed=1)
    w = mp.table_metric(lay)
    if metric == "weighted":
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    ref = _cvxpy_projection(lay, w, r)
    out, info = MarginalProjector(lay, w, tol=1e-7, max_iter=50000).solve_dual(r, on_fail="raise", compiled=True)
    assert info["converged"] and info["compiled"] and info["compiled_from"] == 0
    tabs = lay.forward(out)
    assert tabs.min() >= -1e-12 and np.isclose(out[lay.empty_pos], r[lay.empty_pos])
    d = out - ref
    d[lay.empty_pos] = 0.0
    assert float(d @ (lay.expand(w) * d)) <= 2 * info["duality_gap"] + 1e-6
    assert np.allclose(tabs, lay.forward(ref), atol=1e-3 * max(1.0, np.abs(tabs).max()))


def _ipf_reference(shape, margins, total, stall):
    """ipf_fit's loop as of main ba2adb9 (np.expand_dims, a new table per factor): the in-place version must give
    the same table bit for bit."""
    T = np.full(shape, float(total) / max(math.prod(shape), 1))
    nd = len(shape)
    scale = max(float(total), 1.0)
    drops = {axes: tuple(a for a in range(nd) if a not in axes) for axes in margins}
    prev = np.inf
    for cycle in range(1, 201):
        worst = 0.0
        for axes, target in margins.items():
            drop = drops[axes]
            cur = T.sum(axis=drop) if drop else T
            worst = max(worst, float(np.abs(cur - target).max()))
            with np.errstate(divide="ignore", invalid="ignore"):
                f = np.where(cur > 0, target / np.where(cur > 0, cur, 1.0), 0.0)
            T = T * np.expand_dims(f, drop) if drop else T * f
        if worst <= 1e-10 * scale or (cycle >= ex.STALL_MIN_CYCLES and worst > (1.0 - stall) * prev):
            break
        prev = worst
    return T


@pytest.mark.parametrize("seed", range(4))
def test_ipf_fit_in_place_equals_the_reference_loop(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        shape = tuple(int(x) for x in rng.integers(2, 7, size=rng.integers(2, 4)))
        T0 = rng.gamma(0.5, 10.0, size=shape)
        T0[rng.random(shape) < 0.2] = 0.0
        nd = len(shape)
        margins = {}
        for axes in itertools.combinations(range(nd), nd - 1):
            drop = tuple(a for a in range(nd) if a not in axes)
            m = T0.sum(axis=drop)
            margins[axes] = np.maximum(m * (1.0 + 0.05 * rng.standard_normal(m.shape) * (seed % 2)), 0.0)
        T, _gap = ex.ipf_fit(shape, margins, float(T0.sum()), stall=ex.EXTRAPOLATION_STALL)
        assert np.array_equal(T, _ipf_reference(shape, margins, float(T0.sum()), ex.EXTRAPOLATION_STALL))

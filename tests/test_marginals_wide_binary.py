"""Binary data too wide for the cube step: ``reconstruction="auto"`` projects in the table metric.

The rule (:func:`~sosproj.mechanisms.marginals_pipeline.mix_rule` ``"table"``, :data:`AUTO_MIX_TABLE`,
:func:`table_metric`) is a function of public quantities only; these tests force it on small binary
domains by lowering ``CUBE_MAX_ORDER`` (the cube step's size limit, what routes n = 64 to it).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.data.synthetic import planted_binary
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency
from sosproj.rng import as_generator
from sosproj.sdp.marginal_admm import MarginalProjector
from sosproj.testing import noise_disabled


def _binary(n, m, seed=0):
    return Dataset(planted_binary(m, n, n_clusters=3, rng=seed).astype(np.int64), Domain.from_sizes([2] * n))


@pytest.fixture
def no_cube(monkeypatch):
    """Route every binary layout to the table-metric path (as n = 64, all 3-way, is routed above
    the block-cube SNR)."""
    monkeypatch.setattr(mp, "CUBE_MAX_ORDER", 0)
    monkeypatch.setattr(mp, "BLOCK_CUBE_MAX_ORDER", 0)
    monkeypatch.setattr(mp, "JOINT_AUTO_MAX_N", 0)


@pytest.fixture
def block_cube(monkeypatch):
    """Route every binary layout to the two-block cube path (as n = 64 at low public SNR)."""
    monkeypatch.setattr(mp, "CUBE_MAX_ORDER", 0)
    monkeypatch.setattr(mp, "BLOCK_CUBE_MAX_SNR", 1e9)
    monkeypatch.setattr(mp, "JOINT_AUTO_MAX_N", 0)


def _measurement(ds, k, eps, seed, allocation="auto"):
    lay = ResidualLayout.checked(ds.domain.sizes, all_k_way(ds.n, k))
    args = {"epsilon": eps, "delta": 1e-6, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(ds.m, eps, lay)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(lay, "auto", snr))
    sig, spec, _ = mp.noise_scales(lay, allocation, args, ds.m, mix=mix)
    return mp.measure(ds, lay, sig, spec, allocation, as_generator(seed))


def test_table_metric_is_the_cells_sum_of_squares():
    """||B e||^2 = sum_A d_A ||e_A||^2 for residual vectors e (binary and categorical), and the
    equal-tables allocation measures in exactly this metric (w_A proportional to d_A)."""
    rng = np.random.default_rng(0)
    for sizes, k in (((2,) * 6, 3), ((2, 3, 4, 2), 2)):
        lay = ResidualLayout(sizes, all_k_way(len(sizes), k))
        e = lay.center(rng.standard_normal(lay.res_size))
        e[lay.empty_pos] = 0.0
        d = mp.table_metric(lay)
        assert d[lay.res_pos[()]] == 0.0 and np.all(d[1:] > 0)
        assert np.isclose(np.sum(lay.forward(e) ** 2), np.sum(d * lay.sum_per_set(e ** 2)))
        s = mp.allocation_shape(lay, "equal-tables", m=100, epsilon=1.0)
        ratio = d[1:] * s[1:] ** 2
        assert np.allclose(ratio, ratio[0])


def test_mix_rule_routes_wide_binary_layouts_to_the_table_rule(no_cube):
    lay = ResidualLayout((2,) * 5, all_k_way(5, 3))
    assert mp.mix_rule(lay, "auto", 1.0) == "table"
    assert mp.mix_rule(lay, "lnn") == "lnn"            # explicit reconstructions keep their rule
    assert mp.mix_rule(ResidualLayout((2, 3, 2), all_k_way(3, 2)), "auto", 1.0) != "table"   # categorical
    with pytest.raises(InvalidParameterError, match="snr"):
        mp.mix_rule(lay, "auto")


def test_mix_rule_at_the_benchmark_shapes():
    """planted64 (n = 64, all 3-way) has no full cube step: the two-block cube below the public SNR
    BLOCK_CUBE_MAX_SNR, the table-metric LNN above; n = 32 keeps the full cube."""
    assert mp.cube_degree(64, 3) is None and mp.cube_degree(32, 3) == 4
    # binary_step reads only sizes and the workload's closure: a stand-in with those attributes suffices
    class _Lay:
        sizes = (2,) * 64
        residual_sets = [(0, 1, 2)]
    lim = mp.BLOCK_CUBE_MAX_SNR
    assert mp.binary_step(_Lay(), lim * 1.01 + 1e-9) == "table" == mp.mix_rule(_Lay(), "auto", lim * 1.01 + 1e-9)
    if lim > 0:
        assert mp.binary_step(_Lay(), lim * 0.99) == "block-cube"
        assert mp.mix_rule(_Lay(), "auto", lim * 0.99) == "cube"
    _Lay.sizes = (2,) * 32
    assert mp.binary_step(_Lay(), 0.1) == "cube"


def test_auto_mix_table_rule_shape():
    """t in [0, t_max]; -> 0 at high SNR and at low SNR (ResidualPlanner's allocation there); the
    one-hot rule's formula with the table rule's parameters."""
    snrs = np.logspace(-3, 5, 81)
    t = np.array([mp.auto_mix(x, rule="table") for x in snrs])
    t_max, c, p, lo, q = mp.AUTO_MIX_TABLE
    assert np.all((t >= 0) & (t <= t_max + 1e-12)) and t[-1] < 1e-2 and t[0] < 1e-6
    for x in (0.1, 3.67, 36.7, 1e3):
        assert np.isclose(mp.auto_mix(x, rule="table"), t_max / (1 + (x / c) ** p) / (1 + (lo / x) ** q))
    assert mp.auto_mix(0.0, rule="table") == 0.0


def _clarabel_table_projection(meas, tol):
    """The LNN projection in the table metric by cvxpy/Clarabel (residuals; solved in fractions of m)."""
    cp = pytest.importorskip("cvxpy")
    lay = meas.layout
    m = float(meas.residuals[lay.empty_pos])
    eye = np.eye(lay.res_size)
    Bm = np.array([lay.forward(eye[i]) for i in range(lay.res_size)]).T
    Cm = eye - np.array([lay.center(eye[i].copy()) for i in range(lay.res_size)]).T
    w = lay.expand(mp.table_metric(lay))
    u = cp.Variable(lay.res_size)
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(w, cp.square(u - meas.residuals / m)))),
                      [Bm @ u >= 0, u[lay.empty_pos] == 1.0, Cm @ u == 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol)
    assert prob.status == "optimal"
    return m * u.value


def test_table_projection_equals_cvxpy_and_never_raises_the_cell_rmse(no_cube):
    """The release's reconstruction is the projection in the table metric onto consistent locally
    non-negative tables (cvxpy reference), so its RMSE per cell is at most the BLUE's (a projection onto
    a convex set containing the true tables, in the metric of that error)."""
    ds = _binary(4, 40, seed=2)
    meas = _measurement(ds, 3, 0.3, seed=5)
    lay = meas.layout
    ref = lay.forward(_clarabel_table_projection(meas, 1e-9))
    got, info = mp._auto(meas, {"tol": 1e-8, "max_iter": 20000, "on_fail": "raise"})
    assert info["metric"] == "table" and info["converged"]
    assert np.max(np.abs(lay.forward(got) - ref)) <= 1e-4 * np.abs(ref).max()
    assert np.max(np.abs(lay.forward(meas.residuals) - ref)) > 1e-2 * np.abs(ref).max()   # active
    true = lay.forward(lay.residuals_of_tables([ds.marginal(wl) for wl in lay.workload]))
    assert np.sum((lay.forward(got) - true) ** 2) <= np.sum((lay.forward(meas.residuals) - true) ** 2)


def test_release_on_the_table_path_is_nonnegative_consistent_and_sums_to_m(no_cube):
    ds = _binary(6, 150, seed=1)
    rel = sp.release_marginals(ds, 3, epsilon=0.3, delta=1e-6, rng=3)
    assert rel.info["auto_mix_rule"] == "table"
    assert rel.info["reconstruction_info"]["metric"] == "table"
    assert rel.info["auto_mix"] == mp.auto_mix(rel.info["public_snr"], rule="table")
    for w in rel.workload:
        t = rel.table(w)
        assert t.min() >= 0 and np.isclose(t.sum(), ds.m)
    for w in itertools.combinations(range(6), 2):          # shared sub-marginals agree
        tabs = [rel.table(w3) for w3 in rel.workload if set(w) <= set(w3)]
        subs = [t.sum(axis=[w3.index(a) for a in w3 if a not in w][0])
                for t, w3 in zip(tabs, [w3 for w3 in rel.workload if set(w) <= set(w3)])]
        assert all(np.allclose(s, subs[0], atol=1e-8 * ds.m) for s in subs)


def test_table_path_noise_off_returns_the_true_marginals(no_cube):
    ds = _binary(5, 120, seed=4)
    with noise_disabled():
        rel = sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-6, rng=0)
    assert rel.info["reconstruction_info"]["metric"] == "table"
    for w in itertools.combinations(range(5), 3):
        assert np.allclose(rel.table(w), ds.marginal(w), atol=1e-2)


def test_table_rule_reads_no_records(no_cube):
    """Same public parameters -> identical noise scales and mixing weight; permuting the records leaves
    the release unchanged (same seed), so nothing but the marginals reaches it."""
    a, b = _binary(6, 200, seed=1), _binary(6, 200, seed=2)
    assert not np.array_equal(a.records, b.records)
    kw = {"epsilon": 0.5, "delta": 1e-6}
    ra, rb = sp.release_marginals(a, 3, rng=0, **kw), sp.release_marginals(b, 3, rng=7, **kw)
    assert ra.info["noise_scales"] == rb.info["noise_scales"]
    assert ra.info["auto_mix"] == rb.info["auto_mix"] and ra.info["auto_mix_rule"] == "table"
    perm = np.random.default_rng(0).permutation(a.m)
    rp = sp.release_marginals(Dataset(a.records[perm], a.domain), 3, rng=0, **kw)
    assert np.array_equal(rp.residuals, ra.residuals)


def test_cube_path_unchanged_by_the_metric_argument():
    """``_cube_then_lnn`` with the measurement's own weights passed explicitly is the default call."""
    ds = _binary(6, 300, seed=3)
    meas = _measurement(ds, 3, 0.5, seed=1)
    opts = {"tol": 1e-4, "max_iter": 2000, "on_fail": "return"}
    r0, _ = mp._cube_then_lnn(meas, opts)
    r1, _ = mp._cube_then_lnn(meas, opts, weights=meas.weights)
    assert np.allclose(r0, r1, rtol=0, atol=1e-9 * ds.m)


def test_table_lnn_is_the_projector_in_the_table_metric():
    ds = _binary(5, 200, seed=6)
    meas = _measurement(ds, 3, 0.2, seed=2)
    opts = {"tol": 1e-6, "max_iter": 20000}
    got, info = mp._table_lnn(meas, {**opts, "on_fail": "raise"})
    proj = MarginalProjector(meas.layout, mp.table_metric(meas.layout), **opts)
    ref, _ = proj.solve_dual(meas.residuals)                           # solved on its dual
    assert info["solver"] == "marginal-dual-fista" and np.array_equal(got, ref)
    # the ADMM (kept when the options set its penalty) reaches the same projection
    admm, ainfo = mp._table_lnn(meas, {**opts, "rho": proj.rho0, "on_fail": "raise"})
    assert ainfo["solver"] == "marginal-admm" and ainfo["converged"]
    w = meas.layout.expand(mp.table_metric(meas.layout))
    d = got - admm
    assert 0.5 * float(d @ (w * d)) <= 2 * (info["duality_gap"] + ainfo["duality_gap"]) + 1e-9


def test_table_lnn_dual_at_the_default_tolerance_is_within_its_certificate_of_clarabel(no_cube):
    """The table path at the default tol (the dual): its duality gap bounds its table-metric distance to
    Clarabel's projection, and the gap is small."""
    ds = _binary(4, 40, seed=2)
    meas = _measurement(ds, 3, 0.3, seed=5)
    lay = meas.layout
    w = lay.expand(mp.table_metric(lay))
    ref = _clarabel_table_projection(meas, 1e-10)
    got, info = mp._table_lnn(meas, {"on_fail": "raise"})
    assert info["solver"] == "marginal-dual-fista" and info["converged"] and info["metric"] == "table"
    d = got - ref
    d[lay.empty_pos] = 0.0
    dist2 = 0.5 * float(d @ (w * d))
    assert dist2 <= info["duality_gap"] + 1e-6 * max(info["objective"], 1.0)
    assert info["duality_gap"] <= 1e-2 * max(info["objective"], 1.0)
    assert lay.forward(got).min() >= 0 and np.isclose(lay.forward(got)[:8].sum(), ds.m)


# ---------------------------------------------------------------- the two-block degree-4 cube step


def test_block_basis_covers_every_moment_up_to_order_three():
    from sosproj.data.contingency import SubsetIndex

    for n in (5, 8, 13):
        idx = SubsetIndex(n, 2)
        basis = [frozenset(int(x) for x in idx.members[p] if x >= 0) for p in mp.block_cube_basis(n)]
        assert len(basis) == mp.block_cube_order(n) and frozenset() in basis
        entries = {a ^ b for a in basis for b in basis}
        for j in range(4):
            assert all(frozenset(c) in entries for c in itertools.combinations(range(n), j))
    assert mp.block_cube_order(64) == 1057 <= mp.BLOCK_CUBE_MAX_ORDER


def test_cube_projector_on_a_block_basis_equals_cvxpy():
    """The principal-submatrix relaxation (``basis=``) solves min sum a (f - g)^2, M_basis(f) PSD, f_0 = 1."""
    cp = pytest.importorskip("cvxpy")
    from sosproj.data.contingency import SubsetIndex
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    n = 5
    rng = np.random.default_rng(3)
    idx3 = SubsetIndex(n, 3)
    a = np.r_[0.0, rng.random(len(idx3) - 1) + 0.5]
    g = np.r_[1.0, rng.uniform(-1.2, 1.2, len(idx3) - 1)]           # infeasible: |f| > 1 somewhere
    basis = mp.block_cube_basis(n)
    proj = CubeTablesProjector(n, 4, a, tol=1e-10, max_iter=50000, basis=basis)
    f, info = proj.solve(g, on_fail="raise")
    assert info["moment_matrix_order"] == len(basis)
    idx4 = proj.index
    where = {frozenset(int(x) for x in idx4.members[p] if x >= 0): p for p in range(len(idx4))}
    sets = [frozenset(int(x) for x in idx4.members[p] if x >= 0) for p in basis]
    P = [[where[s ^ t] for t in sets] for s in sets]
    x = cp.Variable(len(idx4))
    M = cp.bmat([[x[p] for p in row] for row in P])
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(a, cp.square(x[:len(idx3)] - g)))),
                      [0.5 * (M + M.T) >> 0, x[0] == 1.0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert prob.status == "optimal"
    np.testing.assert_allclose(f[:len(idx3)], x.value[:len(idx3)], atol=2e-5)
    assert np.max(np.abs(g - x.value[:len(idx3)])) > 1e-2                 # the constraint was active
    # the full basis passed explicitly is the default relaxation
    full = np.arange(sum(math.comb(n, j) for j in range(3)))
    f_full, _ = CubeTablesProjector(n, 4, a, tol=1e-9, max_iter=50000, basis=full).solve(g)
    f_def, _ = CubeTablesProjector(n, 4, a, tol=1e-9, max_iter=50000).solve(g)
    np.testing.assert_allclose(f_full, f_def, atol=1e-12)


def test_cube_projector_refuses_a_basis_that_misses_a_measured_moment():
    from sosproj.data.contingency import SubsetIndex
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    n = 6
    a = np.ones(len(SubsetIndex(n, 3)))
    with pytest.raises(InvalidParameterError, match="measured moment"):
        CubeTablesProjector(n, 4, a, basis=np.arange(n + 1))              # no pairs: no 3-way moment
    for bad in (np.array([1, 2, 3]), np.array([0, 0, 1]), np.array([0, 99]), np.array([0.0, 1.0])):
        with pytest.raises(InvalidParameterError, match="basis"):
            CubeTablesProjector(n, 4, a, basis=bad)


def test_release_on_the_block_cube_path(block_cube):
    """Non-negative, consistent, sums to m; noise off returns the true marginals; the noise scales
    follow the cube rule; the step is the cube projector in the table metric on the block basis."""
    ds = _binary(6, 150, seed=1)
    rel = sp.release_marginals(ds, 3, epsilon=0.3, delta=1e-6, rng=3)
    ri = rel.info["reconstruction_info"]
    assert ri["binary_step"] == "block-cube" and rel.info["auto_mix_rule"] == "cube"
    assert ri["cube"]["moment_matrix_order"] == mp.block_cube_order(6) < 1 + 6 + 15
    for w in rel.workload:
        t = rel.table(w)
        assert t.min() >= 0 and np.isclose(t.sum(), ds.m)
    assert np.allclose(rel.table((0, 1, 2)).sum(axis=2), rel.table((0, 1, 3)).sum(axis=2))
    with noise_disabled():
        rel0 = sp.release_marginals(ds, 3, epsilon=0.3, delta=1e-6, rng=0)
    for w in itertools.combinations(range(6), 3):
        assert np.allclose(rel0.table(w), ds.marginal(w), atol=1e-2)

"""Residual-basis marginals on categorical data: sensitivity, reconstructions, release, public allocation."""

from __future__ import annotations

import itertools
import math
import os

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError, ProjectionError, ResourceLimitError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.policy import ConvergenceWarning
from sosproj.privacy.spec import Adjacency
from sosproj.sdp.marginal_admm import MarginalProjector, OneHotMoment
from sosproj.testing import noise_disabled


def _data(sizes, m, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, size=m)
    cols = [np.where(z == 1, rng.integers(0, s, size=m), rng.integers(0, max(1, s // 2), size=m)) for s in sizes]
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


def _spec_args(eps=1.0, adjacency=Adjacency.REPLACE_ONE):
    return {"epsilon": eps, "delta": 1e-6, "adjacency": adjacency, "calibration": "analytic"}


# ---------------------------------------------------------------- layout


def test_layout_forward_adjoint_and_diagonal_normal_operator():
    lay = ResidualLayout((2, 3, 4), all_k_way(3, 2))
    rng = np.random.default_rng(0)
    r = lay.center(rng.standard_normal(lay.res_size))
    r[lay.res_pos[()]] = 0.0
    t = rng.standard_normal(lay.tab_size)
    assert np.isclose(lay.forward(r) @ t, r @ lay.adjoint(t))           # <Br, t> = <r, B^T t>
    assert np.allclose(lay.adjoint(lay.forward(r)), lay.normal_diag * r)  # B^T B = diag(d)
    ds = _data((2, 3, 4), 50)
    tabs = [ds.marginal(w) for w in lay.workload]
    back = lay.tables(lay.forward(lay.residuals_of_tables(tabs)))
    assert all(np.allclose(a, b) for a, b in zip(back, tabs, strict=True))


def test_one_hot_moment_normal_operator_is_diagonal():
    lay = ResidualLayout((2, 3, 3), all_k_way(3, 2))
    M = OneHotMoment(lay)
    r = lay.center(np.random.default_rng(1).standard_normal(lay.res_size))
    r[lay.res_pos[()]] = 0.0
    Y = np.random.default_rng(2).standard_normal((M.order, M.order))
    assert np.isclose(np.sum(M.forward(r) * Y), r @ M.adjoint(Y))
    assert np.allclose(M.adjoint(M.forward(r)), M.normal_diag * r)
    ds = _data((2, 3, 3), 40)
    rt = lay.residuals_of_tables([ds.marginal(w) for w in lay.workload])
    assert np.linalg.eigvalsh(M.forward(rt)).min() > -1e-9                  # true moments are PSD


# ---------------------------------------------------------------- sensitivity (brute force)


def _whitened(lay: ResidualLayout, s: np.ndarray, x: tuple[int, ...], with_total: bool) -> np.ndarray:
    ds = Dataset(np.array([x]), Domain.from_sizes(lay.sizes))
    r = lay.residuals_of_tables([ds.marginal(w) for w in lay.workload]) / lay.expand(s)
    if not with_total:
        r[lay.res_pos[()]] = 0.0
    return r


@pytest.mark.parametrize("sizes, workload", [
    ((2, 2, 2, 2), None),                 # binary, all 2-way
    ((2, 3, 3, 4), None),                 # categorical, symmetric classes
    ((3, 2, 4), [(0, 1), (1, 2)]),        # non-symmetric workload: all 2^n patterns
])
@pytest.mark.parametrize("allocation", mp.ALLOCATIONS)
def test_sensitivity_equals_brute_force_over_all_record_pairs(sizes, workload, allocation):
    wl = all_k_way(len(sizes), 2) if workload is None else workload
    lay = ResidualLayout(sizes, wl)
    assert_sensitivity_is_brute_force(lay, mp.allocation_shape(lay, allocation, m=100, epsilon=0.5))


def assert_sensitivity_is_brute_force(lay: ResidualLayout, s: np.ndarray) -> None:
    """``residual_sensitivity`` (both adjacencies) equals the maximum over all records / record pairs of the
    whitened residuals ``c_A / s_A`` (``s_A = inf``: a skipped set, contributes 0); small domains only."""
    recs = list(itertools.product(*[range(n) for n in lay.sizes]))
    phi = np.array([_whitened(lay, s, x, False) for x in recs])
    G = phi @ phi.T
    sq = np.diag(G)
    brute_ro = np.sqrt(np.max(sq[:, None] + sq[None, :] - 2 * G))
    got = mp.residual_sensitivity(lay, s, Adjacency.REPLACE_ONE)
    assert got["exact"] and np.isclose(got["sensitivity"], brute_ro, rtol=1e-10)
    phi_t = np.array([_whitened(lay, s, x, True) for x in recs])
    brute_ar = np.sqrt(np.max(np.sum(phi_t ** 2, axis=1)))
    assert np.isclose(mp.residual_sensitivity(lay, s, Adjacency.ADD_REMOVE)["sensitivity"], brute_ar)


def test_equal_tables_allocation_matches_classical_table_sensitivity():
    """Equal-noise tables = the residual allocation s_A^2 = 1/d_A with the same calibration (sqrt(2 #tables))."""
    n, k = 6, 3
    lay = ResidualLayout((2,) * n, all_k_way(n, k))
    s = mp.allocation_shape(lay, "equal-tables", m=10, epsilon=1.0)
    d = lay.normal_diag_sets
    nz = np.arange(1, len(d))
    scale = s[nz] ** 2 * d[nz]
    assert np.allclose(scale, scale[0])                 # s_A^2 proportional to 1/d_A
    sens = mp.residual_sensitivity(lay, s, Adjacency.REPLACE_ONE)["sensitivity"]
    # in table units (s_A^2 = 1/d_A exactly) the sensitivity is sqrt(2 * #tables)
    assert np.isclose(sens * np.sqrt(scale[0]), np.sqrt(2 * len(lay.workload)))


def test_same_public_parameters_give_identical_noise_scales():
    a = _data((2, 3, 5, 4), 300, seed=1)
    b = _data((2, 3, 5, 4), 300, seed=2)
    assert not np.array_equal(a.records, b.records)
    for alloc, recon, eps in itertools.product(mp.ALLOCATIONS, ("blue", "auto"), (0.7, 0.01)):
        kw = {"epsilon": eps, "delta": 1e-6, "allocation": alloc, "reconstruction": recon}
        ra = sp.release_marginals(a, 3, rng=0, **kw)
        rb = sp.release_marginals(b, 3, rng=5, **kw)
        assert ra.info["noise_scales"] == rb.info["noise_scales"]
        assert ra.info["auto_mix"] == rb.info["auto_mix"]
        assert ra.spec == rb.spec
    # the rule follows the (public) reconstruction run: LNN below PSD_MIN_SNR, one-hot PSD from it
    assert ra.info["auto_mix_rule"] is None
    rel = sp.release_marginals(a, 3, epsilon=0.7, delta=1e-6, rng=0)
    assert rel.info["auto_mix_rule"] == "cat-lnn" and rel.info["public_snr"] < mp.PSD_MIN_SNR
    rel = sp.release_marginals(a, 3, epsilon=10.0, delta=1e-6, rng=0)
    assert rel.info["auto_mix_rule"] == "onehot" and rel.info["public_snr"] >= mp.PSD_MIN_SNR
    rel = sp.release_marginals(a, 3, epsilon=0.7, delta=1e-6, reconstruction="lnn", rng=0)
    assert rel.info["auto_mix_rule"] == "cat-lnn"


def test_auto_mix_rules_shapes():
    """t in [0, t_max]; -> 0 at high SNR for every rule; the one-hot rule also -> 0 as SNR -> 0 and
    equals the plain rule times its low-SNR factor; unknown rule names are refused."""
    snrs = np.logspace(-4, 6, 101)
    for rule in mp.MIX_RULES:
        t = np.array([mp.auto_mix(x, rule=rule) for x in snrs])
        # the exact polytope's rule decays as snr^-0.5: t(1e4) = 0.03, t(1e6) = 0.003
        assert np.all((t >= 0) & (t <= 2.0)) and t[-1] < 1e-2
    tmax, c, p, lo, q = mp.AUTO_MIX_ONEHOT
    for x in (1e-3, 0.03, 1.0, 50.0):
        plain = tmax / (1 + (x / c) ** p)
        want = plain / (1 + (lo / x) ** q) if lo > 0 else plain
        assert math.isclose(mp.auto_mix(x, rule="onehot"), want, rel_tol=1e-12)
    assert mp.auto_mix(0.0, rule="onehot") == (0.0 if lo > 0 else tmax)
    assert mp.auto_mix(3.0, cube=True) == mp.auto_mix(3.0, rule="cube")
    with pytest.raises(InvalidParameterError, match="rule"):
        mp.auto_mix(1.0, rule="tables")


# ---------------------------------------------------------------- reconstructions


@pytest.mark.parametrize("reconstruction", sorted(mp.RECONSTRUCTIONS))
@pytest.mark.parametrize("sizes", [(2, 2, 2, 2), (2, 3, 4, 3)])
def test_noise_off_returns_true_marginals(reconstruction, sizes, measure_every_set):
    if reconstruction == "joint" and any(s != 2 for s in sizes):
        # the exact polytope is built for binary data: categorical input is refused (tests/test_marginals_joint.py)
        with pytest.raises(InvalidParameterError, match="binary"):
            sp.release_marginals(_data(sizes, 200), 3, epsilon=1.0, delta=1e-6, reconstruction=reconstruction, rng=0)
        return
    ds = _data(sizes, 200)
    with noise_disabled():
        rel = sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-6, reconstruction=reconstruction, rng=0)
    assert rel.info.get("noise_disabled") is True
    for w in itertools.combinations(range(len(sizes)), 3):
        assert np.allclose(rel.table(w), ds.marginal(w), atol=1e-2)      # solver tolerance, count units
    assert np.allclose(rel.table((2, 0)), ds.marginal((2, 0)), atol=1e-2)


def _measurement(ds, k, eps, alloc="rp", seed=0, workload=None):
    wl = all_k_way(ds.n, k) if workload is None else workload
    lay = ResidualLayout(ds.domain.sizes, wl)
    sig, spec, _ = mp.noise_scales(lay, alloc, _spec_args(eps), ds.m)
    return mp.measure(ds, lay, sig, spec, alloc, np.random.default_rng(seed))


def _dense_query(lay: ResidualLayout, sizes) -> np.ndarray:
    """Explicit matrix of the (centered) residual queries over the full domain (small domains only)."""
    recs = list(itertools.product(*[range(n) for n in sizes]))
    cols = []
    for x in recs:
        ds = Dataset(np.array([x]), Domain.from_sizes(sizes))
        cols.append(lay.residuals_of_tables([ds.marginal(w) for w in lay.workload]))
    return np.array(cols).T, recs


def test_blue_equals_generic_weighted_least_squares():
    sizes = (2, 3, 3)
    ds = _data(sizes, 60)
    meas = _measurement(ds, 2, 0.3)
    lay = meas.layout
    R, recs = _dense_query(lay, sizes)
    w = lay.expand(meas.weights)
    e = lay.res_pos[()]
    w[e] = 1e8                                       # the public total, as a (near) hard constraint
    sw = np.sqrt(w)
    x, *_ = np.linalg.lstsq(R * sw[:, None], meas.residuals * sw, rcond=None)
    r_blue, _ = mp.RECONSTRUCTIONS["blue"](meas, {})
    for wset in lay.workload:
        full = np.zeros(sizes)
        for xi, rec in zip(x, recs, strict=True):
            full[rec] += xi
        other = tuple(a for a in range(3) if a not in wset)
        assert np.allclose(full.sum(axis=other), lay.marginal(r_blue, wset), atol=1e-5)


@pytest.mark.parametrize("psd,warm", [(False, False), (True, False), (True, True)])
def test_lnn_projection_equals_cvxpy(psd, warm):
    cp = pytest.importorskip("cvxpy")
    sizes = (2, 3, 3)
    ds = _data(sizes, 30)
    meas = _measurement(ds, 2, 0.2, seed=3)
    lay = meas.layout
    e = lay.res_pos[()]
    Bm = np.array([lay.forward(np.eye(lay.res_size)[i]) for i in range(lay.res_size)]).T
    Cm = np.eye(lay.res_size) - np.array([lay.center(np.eye(lay.res_size)[i].copy())
                                          for i in range(lay.res_size)]).T
    w = lay.expand(meas.weights)
    # the reference solves in fractions u = r / m (counts make Clarabel stop "inaccurate" at 1e-8)
    u = cp.Variable(lay.res_size)
    cons = [Bm @ u >= 0, u[e] == 1.0, Cm @ u == 0]
    if psd:
        M = OneHotMoment(lay)
        Mm = np.array([M.forward(np.eye(lay.res_size)[i]).ravel() for i in range(lay.res_size)]).T
        X = cp.reshape(Mm @ u, (M.order, M.order), order="C")
        cons.append(0.5 * (X + X.T) >> 0)
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(w, cp.square(u - meas.residuals / ds.m)))), cons)
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-8, tol_gap_rel=1e-8, tol_feas=1e-8)
    assert prob.status == "optimal"
    ref = Bm @ (ds.m * u.value)
    proj = MarginalProjector(lay, meas.weights, psd=psd, tol=1e-9, max_iter=20000)
    start = None
    if warm:   # warm start from the LNN projection's final iterate (what reconstruction="auto" does)
        _, _, start = MarginalProjector(lay, meas.weights, tol=1e-9, max_iter=20000).solve_state(
            meas.residuals, on_fail="raise")
    got, info = proj.solve(meas.residuals, on_fail="raise", warm_start=start)
    assert info["warm_start"] is warm
    scale = np.abs(ref).max()
    assert np.max(np.abs(lay.forward(got) - ref)) <= 2e-4 * scale
    assert info["converged"] and lay.forward(got).min() >= 0
    assert np.max(np.abs(lay.forward(meas.residuals) - ref)) > 1e-2 * scale   # constraints were active


def _psd_fails(monkeypatch):
    """Make every PSD run of the marginal ADMM stop unconverged after 3 iterations."""
    orig = MarginalProjector.solve_state

    def capped(self, *args, **kwargs):
        if self.moment is not None:
            self.max_iter = 3
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(MarginalProjector, "solve_state", capped)


def test_auto_returns_converged_psd_or_falls_back_to_converged_lnn(monkeypatch):
    ds = _data((2, 3, 4, 5), 200)
    kw = {"epsilon": 0.5, "delta": 1e-6, "rng": 7, "allocation": "rp",
          "project_options": {"tol": 1e-4, "max_iter": 20000}}
    auto = sp.release_marginals(ds, 2, reconstruction="lnn-psd", **kw)
    lnn = sp.release_marginals(ds, 2, reconstruction="lnn", **kw)
    ri = auto.info["reconstruction_info"]
    assert ri["psd"] and ri["converged"] and ri["warm_start"] and ri["psd_fallback"] is None
    assert ri["lnn_step"]["converged"]
    # PSD not converged within its budget: the LNN projection (converged, exact) is returned, and said so
    _psd_fails(monkeypatch)
    with np.errstate(all="ignore"):
        fb = sp.release_marginals(ds, 2, reconstruction="lnn-psd", **kw)
    fi = fb.info["reconstruction_info"]
    assert fi["psd_fallback"] == "psd-not-converged" and not fi["psd"] and fi["converged"]
    assert fi["psd_step"]["iterations"] == 3 and not fi["psd_step"]["converged"]
    for w in fb.workload:
        assert np.array_equal(fb.table(w), lnn.table(w))
    assert not all(np.allclose(auto.table(w), lnn.table(w), atol=1e-3) for w in fb.workload)


def test_auto_adds_the_psd_step_from_the_public_snr_threshold():
    ds = _data((2, 3, 4), 300)
    for eps, want in ((0.5, False), (100.0, True)):
        rel = sp.release_marginals(ds, 2, epsilon=eps, delta=1e-6, rng=1)
        snr = rel.info["public_snr"]
        assert (snr >= mp.PSD_MIN_SNR) is want
        ri = rel.info["reconstruction_info"]
        assert ("psd_fallback" in ri) is want and ri["converged"]
    lay = ResidualLayout((2, 3, 4), [(0, 1), (1, 2)])           # pair (0, 2) missing: no PSD step
    assert not mp.onehot_psd(lay)
    with pytest.raises(InvalidParameterError, match="every pair"):
        sp.release_marginals(ds, 2, epsilon=1.0, delta=1e-6, workload=[(0, 1), (1, 2)], reconstruction="lnn-psd")


def test_titanic_and_adult_public_snr_below_the_psd_threshold():
    """docs/marginals.md: Titanic's public SNR is 0.002-0.69 and Adult's 0.012-3.9 over epsilon 0.03-10 (from
    the public domain and m alone), so ``"auto"`` reconstructs both with ``"lnn"``; and Adult's moment order
    (1 + sum of sizes = 281) is above the PSD step's cost limit :data:`PSD_MAX_ORDER` (session 33), Titanic's (160)
    below it."""
    for name, lo, hi, order in (("titanic", 0.002, 0.69, 160), ("adult", 0.012, 3.9, 281)):
        ds = sp.load_dataset(name)
        lay = ResidualLayout(ds.domain.sizes, all_k_way(ds.n, 3))
        snr = [mp.public_snr(ds.m, e, lay) for e in (0.03, 10.0)]
        assert round(snr[0], 3) == lo and round(snr[1], 2 if hi < 1 else 1) == hi
        assert 1 + sum(ds.domain.sizes) == order
        assert max(snr) < mp.PSD_MIN_SNR and mp.onehot_psd(lay) is (order <= mp.PSD_MAX_ORDER)
    assert not mp.onehot_psd(ResidualLayout(sp.load_dataset("adult").domain.sizes, all_k_way(15, 2)))


def test_auto_without_any_converged_step_says_unconverged():
    ds = _data((2, 3, 4), 60)
    kw = {"epsilon": 0.3, "delta": 1e-6, "rng": 2, "reconstruction": "lnn-psd",
          "project_options": {"tol": 1e-9, "max_iter": 2}}
    with pytest.warns(ConvergenceWarning, match="neither the LNN nor the LNN \\+ PSD"):
        rel = sp.release_marginals(ds, 2, **kw)
    ri = rel.info["reconstruction_info"]
    assert ri["psd_fallback"] == "psd-not-converged" and not ri["converged"] and not ri["psd"]
    assert not ri["psd_step"]["converged"]
    assert ri["iterations"] == 2 and ri["psd_step"]["iterations"] == 1   # one budget: max(2 - 2, 2 // 10, 1)
    kw20 = {**kw, "project_options": {"tol": 1e-12, "max_iter": 20}}
    with pytest.warns(ConvergenceWarning):
        ri = sp.release_marginals(ds, 2, **kw20).info["reconstruction_info"]
    assert ri["iterations"] == 20 and ri["psd_step"]["iterations"] == 2   # 20 // 10
    with pytest.raises(ProjectionError):
        sp.release_marginals(ds, 2, **{**kw, "project_options": {**kw["project_options"], "on_fail": "raise"}})


@pytest.mark.parametrize("reconstruction", ["lnn", "auto"])
@pytest.mark.parametrize("sizes", [(2, 3, 4, 5), (2, 2, 2, 2)])
def test_released_tables_nonnegative_consistent_sum_to_m(reconstruction, sizes):
    ds = _data(sizes, 120)
    rel = sp.release_marginals(ds, 3, epsilon=0.2, delta=1e-6, reconstruction=reconstruction, rng=4)
    for w in rel.workload:
        t = rel.table(w)
        assert t.min() >= 0 and np.isclose(t.sum(), ds.m)
    t = rel.table((0, 1, 2))
    assert np.allclose(t.sum(axis=2), rel.table((0, 1)))
    assert np.allclose(rel.table((0, 1, 3)).sum(axis=2), rel.table((0, 1)))


# ---------------------------------------------------------------- API


def test_api_names_axes_binary_query_and_info():
    ds = sp.load_dataset("titanic", columns=["Survived", "Pclass", "Sex", "Embarked"])
    rel = sp.release_marginals(ds, k=3, epsilon=1.0, delta=1e-9, rng=0)
    t = rel.table(["Sex", "Survived"])
    assert t.shape == (2, 3)
    assert np.allclose(t, rel.table((0, 2)).T)
    assert rel.info["adjacency"] == "replace-one" and rel.spec.adjacency is Adjacency.REPLACE_ONE
    closure = ResidualLayout(ds.domain.sizes, all_k_way(4, 3)).residual_sets
    assert set(rel.info["noise_scales"]) == {A for A in closure if A}
    D = np.random.default_rng(0).integers(0, 2, size=(100, 4))
    with noise_disabled():
        rb = sp.release_marginals(D, 2, epsilon=1.0, delta=1e-6, rng=0)
    assert np.isclose(rb.query([0, 1]), np.sum(D[:, 0] * D[:, 1]))
    rc = sp.release_marginals(np.array([[0, 2], [1, 1]]), 2, epsilon=1, delta=1e-6, domain={"a": 2, "b": 3},
                              rng=0, adjacency="add-remove", public_m=2)
    assert rc.info["adjacency"] == "add-remove" and () in rc.info["noise_scales"]
    with pytest.raises(InvalidParameterError, match="query"):
        rc.query([0])


def test_bad_workload_and_memory_refusal(monkeypatch):
    ds = _data((2, 3, 4), 20)
    with pytest.raises(InvalidParameterError, match="unknown attribute"):
        sp.release_marginals(ds, 2, epsilon=1, delta=1e-6, workload=[("x0", "nope")])
    with pytest.raises(InvalidParameterError, match="allocation"):
        sp.release_marginals(ds, 2, epsilon=1, delta=1e-6, allocation="bogus")
    big = Dataset(np.zeros((2, 6), dtype=int), Domain.from_sizes([200] * 6))
    monkeypatch.setitem(os.environ, "SOSPROJ_MEMORY_LIMIT", str(10**9))
    with pytest.raises(ResourceLimitError, match="estimated"):
        sp.release_marginals(big, 3, epsilon=1, delta=1e-6)
    wide = Dataset(np.zeros((2, 3000), dtype=int), Domain.from_sizes([2] * 3000))
    with pytest.raises(ResourceLimitError, match="4,495,501,000 3-way tables"):
        sp.release_marginals(wide, 3, epsilon=1, delta=1e-6)        # refused before enumerating the sets


def test_accountant_is_charged_with_the_release_sensitivity():
    ds = _data((2, 3, 3), 50)
    acc = sp.PrivacyAccountant(1.0, 1e-5)
    rel = sp.release_marginals(ds, 2, epsilon=0.9, delta=1e-6, rng=0, accountant=acc)
    assert rel.spec.epsilon == 0.9
    with pytest.raises(sp.errors.PrivacyBudgetError):
        sp.release_marginals(ds, 2, epsilon=0.9, delta=1e-6, rng=0, accountant=acc)


# ---------------------------------------------------------------- empirical audit


@pytest.mark.parametrize("eps,delta", [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)])
def test_audit_passes_default_allocation_and_catches_half_sigma(eps, delta):
    """The measurement of the default allocation (whitened residuals) on a worst-case replace-one pair."""
    from sosproj.audit import GaussianMeasurement, audit_mechanism, under_noised

    sizes = (2, 3, 3)
    base = _data(sizes, 30, seed=7)
    lay = ResidualLayout(sizes, all_k_way(3, 2))
    # the release's own relative scales sigma_A / sigma_0 on the measured sets (the L1 correction included), the
    # allocation's shape on the sets the skip rule leaves out (as before the correction)
    ref = sp.release_marginals(base, 2, epsilon=eps, delta=delta, domain=list(sizes), reconstruction="blue", rng=0)
    shape = mp.allocation_shape(lay, "auto", m=30, epsilon=eps)
    for i, A in enumerate(lay.residual_sets):
        if A and np.isfinite(ref.info["noise_scales"][A]):
            shape[i] = ref.info["noise_scales"][A] / ref.info["sigma0"]
    s = lay.expand(shape)
    recs = list(itertools.product(*[range(n) for n in sizes]))
    phi = {x: _whitened(lay, shape, x, False) for x in recs}
    x, y = max(itertools.combinations(recs, 2), key=lambda p: np.linalg.norm(phi[p[0]] - phi[p[1]]))
    D = base.records.copy()
    D[0] = x
    D2 = D.copy()
    D2[0] = y

    def make():
        def rel(data, rng):
            return sp.release_marginals(data, 2, epsilon=eps, delta=delta, domain=list(sizes),
                                        reconstruction="blue", rng=rng)
        return GaussianMeasurement(rel, value=lambda r: r.residuals / s, noise_scale=lambda r: r.sigma,
                                   verify_trials=60)

    mech = make()
    rel = mech.release(D, 0)
    assert np.linalg.norm(mech.exact(D2) - mech.exact(D)) == pytest.approx(rel.sensitivity, rel=1e-9)
    good = audit_mechanism(mech, D, D2, epsilon=eps, delta=delta, trials=200_000, rng=1)
    assert good.passed and good.verification["passed"]
    with under_noised(0.5):
        bad = audit_mechanism(make(), D, D2, epsilon=eps, delta=delta, trials=200_000, rng=2)
    assert not bad.passed


def test_one_hot_system_relaxation_size_and_points():
    """The categorical system: records are its points; degree-2 free moments = 1 + sum(n-1) + pairs."""
    from sosproj.poly import MomentRelaxation, one_hot

    S = one_hot([2, 3])
    assert S.contains([[0, 1, 0, 0, 1]]).all() and not S.contains([[1, 1, 0, 0, 1]]).any()
    R = MomentRelaxation(S, 2)
    assert R.n_moments == 1 + (1 + 2) + 1 * 2


def test_default_tolerance_follows_public_snr_and_options_override():
    """The projections' tolerance is min(1e-3, 0.005 / snr) unless options give one."""
    ds = _data((2, 3, 2, 3), 5000, seed=4)
    lo = sp.release_marginals(ds, 3, epsilon=0.002, delta=1e-6, rng=0)
    hi = sp.release_marginals(ds, 3, epsilon=50.0, delta=1e-6, rng=0, reconstruction="lnn")
    assert lo.info["reconstruction_tol"] == mp.default_tolerance(lo.info["public_snr"]) == mp.DEFAULT_TOL
    assert hi.info["reconstruction_tol"] == mp.TOL_SNR / hi.info["public_snr"] < mp.DEFAULT_TOL
    own = mp.release(ds, 3, epsilon=50.0, delta=1e-6, rng=0, reconstruction="lnn", options={"tol": 1e-2})
    assert own.info["reconstruction_tol"] == 1e-2
    assert mp.default_tolerance(0.0) == mp.DEFAULT_TOL


def test_add_remove_rules_never_read_the_private_record_count():
    """Under add/remove m is private: the auto allocation needs public_m, the noise scales depend on
    public_m only (not on the dataset's size), and the release's m is the released total."""
    rng = np.random.default_rng(3)
    small = rng.integers(0, 3, size=(200, 3))
    large = rng.integers(0, 3, size=(900, 3))
    dom = {"a": 3, "b": 3, "c": 3}
    with pytest.raises(InvalidParameterError, match="public_m"):
        sp.release_marginals(small, 2, epsilon=1.0, delta=1e-6, domain=dom, adjacency="add-remove", rng=0)
    rels = [sp.release_marginals(D, 2, epsilon=1.0, delta=1e-6, domain=dom, adjacency="add-remove",
                                 public_m=500, rng=0) for D in (small, large)]
    assert rels[0].info["noise_scales"] == rels[1].info["noise_scales"]
    assert rels[0].info["auto_mix"] == rels[1].info["auto_mix"]
    assert rels[0].info["public_snr"] == rels[1].info["public_snr"]
    for rel in rels:
        total = float(rel.residuals[rel.layout.empty_pos])
        assert rel.m == max(int(round(total)), 0)
    # an explicit allocation needs no public_m; its settings come from the released total
    rp = sp.release_marginals(small, 2, epsilon=1.0, delta=1e-6, domain=dom, adjacency="add-remove",
                              allocation="rp", rng=0)
    assert rp.info["auto_mix"] is None and rp.info["public_snr"] > 0
    # replace-one: m is public; a different public_m is refused, the same one changes nothing
    a = sp.release_marginals(small, 2, epsilon=1.0, delta=1e-6, domain=dom, rng=0)
    b = sp.release_marginals(small, 2, epsilon=1.0, delta=1e-6, domain=dom, rng=0, public_m=200)
    assert np.array_equal(a.residuals, b.residuals) and a.m == 200
    with pytest.raises(InvalidParameterError, match="public_m"):
        sp.release_marginals(small, 2, epsilon=1.0, delta=1e-6, domain=dom, rng=0, public_m=201)
    with pytest.raises(InvalidParameterError, match="public_m"):
        sp.release_marginals(small, 2, epsilon=1.0, delta=1e-6, method="tables", public_m=200)


def test_binary_auto_reports_an_unconverged_cube_step(cube_path, monkeypatch):
    """The default binary release is the LNN projection of the cube step's output: when the cube ADMM stops
    at its cap, the release says ``converged: False`` even though the LNN step itself converged."""
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    rng = np.random.default_rng(3)
    ds = Dataset(rng.integers(0, 2, size=(400, 5)), Domain.from_sizes((2,) * 5))
    kw = {"epsilon": 0.1, "delta": 1e-6, "rng": 5, "project_options": {"tol": 1e-6, "max_iter": 5000}}
    ok = sp.release_marginals(ds, 3, **kw).info["reconstruction_info"]
    assert ok["cube"]["converged"] and ok["converged"]
    orig = CubeTablesProjector.__init__

    def capped(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        self.max_iter = 2

    monkeypatch.setattr(CubeTablesProjector, "__init__", capped)
    ri = sp.release_marginals(ds, 3, **kw).info["reconstruction_info"]
    assert ri["cube"]["iterations"] == 2 and not ri["cube"]["converged"]
    assert not ri["converged"]

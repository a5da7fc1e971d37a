"""Benchmark peers (benchmarks/peers) against generic solvers and brute force on small domains."""

from __future__ import annotations

import itertools
import math
import sys
from functools import reduce
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from peers.data import DATA_DIR, load_csv_domain  # noqa: E402
from peers.grem_lnn import gram_diagonal, grem_lnn  # noqa: E402
from peers.residual import (  # noqa: E402
    MarginalWorkload,
    blue,
    calibrated_sigmas,
    measure,
    replace_one_sensitivity,
    residual_planner,
    rp_allocation_shape,
    truncate_rescale,
)

cp = pytest.importorskip("cvxpy")


def _sub(n: int) -> np.ndarray:
    return np.hstack([np.ones((n - 1, 1)), -np.eye(n - 1)])


def _query(sizes, a):
    """Explicit residual query R_A over the full domain (C order of all attributes)."""
    mats = [_sub(n) if i in a else np.ones((1, n)) for i, n in enumerate(sizes)]
    return reduce(np.kron, mats)


def _cov(sizes, a):
    return reduce(np.kron, [_sub(sizes[i]) @ _sub(sizes[i]).T for i in a])


def _inv_sqrt(c):
    w, v = np.linalg.eigh(c)
    return v @ np.diag(w ** -0.5) @ v.T


def _marg_matrix(sizes, w):
    mats = [np.eye(n) if i in w else np.ones((1, n)) for i, n in enumerate(sizes)]
    return reduce(np.kron, mats)


def _data(sizes, m, seed):
    g = np.random.default_rng(seed)
    return np.column_stack([g.integers(0, n, size=m) for n in sizes])


SIZES = (2, 3, 2, 3)


def test_blue_equals_generic_weighted_least_squares():
    wl = MarginalWorkload.all_k_way(SIZES, 2)
    X = _data(SIZES, 40, 0)
    g = np.random.default_rng(1)
    sig = g.uniform(0.5, 3.0, len(wl.residuals))
    meas = measure(wl, X, sig, g)
    x = cp.Variable(math.prod(SIZES))
    terms = []
    for j, a in enumerate(wl.residuals):
        r = meas.r[wl.res_offsets[j]:wl.res_offsets[j + 1]]
        y = reduce(np.kron, [_sub(SIZES[i]) for i in a]) @ r  # the released Sub_A (mu_A + noise)
        W = _inv_sqrt(_cov(SIZES, a)) / sig[j]
        terms.append(cp.sum_squares(W @ (_query(SIZES, a) @ x - y)))
    prob = cp.Problem(cp.Minimize(sum(terms)), [cp.sum(x) == X.shape[0]])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    ref = np.concatenate([_marg_matrix(SIZES, w) @ x.value for w in wl.sets])
    assert np.allclose(blue(meas), ref, atol=1e-6)


@pytest.mark.parametrize("sizes,k", [((2, 3, 2), 2), ((2, 2, 2, 2), 3), ((3, 2, 4), 3)])
def test_replace_one_sensitivity_brute_force(sizes, k):
    wl = MarginalWorkload.all_k_way(sizes, k)
    sig = np.random.default_rng(2).uniform(0.5, 2.0, len(wl.residuals))
    whiten = [_inv_sqrt(_cov(sizes, a)) @ _query(sizes, a) / s for a, s in zip(wl.residuals, sig)]
    Q = np.vstack(whiten)  # whitened measurement of every record (columns)
    diff = Q[:, :, None] - Q[:, None, :]
    brute = math.sqrt(float(np.max(np.einsum("ijk,ijk->jk", diff, diff))))
    assert replace_one_sensitivity(wl, sig) == pytest.approx(brute, rel=1e-10)


def test_sensitivity_symmetric_path_matches_enumeration():
    wl = MarginalWorkload.all_k_way((2,) * 7, 3)
    shape = rp_allocation_shape(wl)
    assert replace_one_sensitivity(wl, shape, max_enum=0) == pytest.approx(
        replace_one_sensitivity(wl, shape), rel=1e-12)


def test_calibration_gives_target_sigma_on_whitened_measurement():
    from sosproj.privacy.calibration import gaussian_sigma

    wl = MarginalWorkload.all_k_way(SIZES, 2)
    sig, _ = calibrated_sigmas(wl, rp_allocation_shape(wl), 0.7, 1e-9)
    # unit noise on the whitened measurement must equal the analytic sigma of its sensitivity
    assert gaussian_sigma(0.7, 1e-9, replace_one_sensitivity(wl, sig)) == pytest.approx(1.0, rel=1e-9)


def test_rp_allocation_is_optimal_for_sum_of_cell_variances():
    wl = MarginalWorkload.all_k_way((2, 3, 4, 2), 2)
    v = np.zeros(len(wl.residuals))
    for w in wl.sets:
        for j, a in enumerate(wl.residuals):
            if set(a) <= set(w):
                v[j] += math.prod(wl.sizes[i] - 1 for i in a) / math.prod(wl.sizes[i] for i in w if i not in a)
    p = np.array([math.prod((wl.sizes[i] - 1) / wl.sizes[i] for i in a) for a in wl.residuals])
    s = cp.Variable(len(v), pos=True)  # s = sigma^2
    cp.Problem(cp.Minimize(v @ s), [p @ cp.inv_pos(s) <= 1]).solve(solver="CLARABEL")
    shape2 = rp_allocation_shape(wl) ** 2
    assert np.allclose(shape2 / shape2.sum(), s.value / s.value.sum(), atol=1e-5)


def _lnn_reference(meas):
    wl = meas.wl
    P = np.vstack([wl.project(e) for e in np.eye(wl.M.shape[1])]).T
    d = wl.residual_sigmas_flat(meas.sigmas) ** 2
    a = cp.Variable(wl.M.shape[1])
    c = meas.m * wl.inv_cells
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum(cp.multiply(1 / d, cp.square(a - meas.r)))),
                      [(np.eye(len(d)) - P) @ a == 0, wl.M.toarray() @ a + c >= 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return wl.M.toarray() @ a.value + c


@pytest.mark.parametrize("sizes,k,seed", [((2, 3, 2, 3), 2, 3), ((2, 2, 2, 2, 2), 3, 4)])
def test_grem_lnn_equals_generic_qp(sizes, k, seed):
    wl = MarginalWorkload.all_k_way(sizes, k)
    X = _data(sizes, 30, seed)
    meas = residual_planner(wl, X, 0.5, 1e-6, np.random.default_rng(seed))
    assert blue(meas).min() < -1  # the constraints are active
    out, info = grem_lnn(meas, tol=1e-7, max_iter=50000, return_info=True)
    assert info["converged"]
    ref = _lnn_reference(meas)
    assert np.allclose(out, ref, atol=1e-4 * max(1.0, np.abs(ref).max()))
    for j in range(len(wl.sets)):  # non-negative, sums to m
        t = out[wl.wl_offsets[j]:wl.wl_offsets[j + 1]]
        assert t.min() >= 0 and t.sum() == pytest.approx(X.shape[0], abs=1e-4)


def test_gram_matrix_is_diagonal_on_residual_range():
    wl = MarginalWorkload.all_k_way((2, 3, 3), 2)
    meas = measure(wl, _data((2, 3, 3), 5, 0), np.ones(len(wl.residuals)), np.random.default_rng(0))
    P = np.vstack([wl.project(e) for e in np.eye(wl.M.shape[1])]).T
    G = P.T @ wl.M.T.toarray() @ wl.M.toarray() @ P
    assert np.allclose(G, P * gram_diagonal(meas)[None, :])


def test_noise_off_every_reconstruction_is_exact_and_shared_submarginals_agree():
    sizes = (3, 2, 4, 2)
    wl = MarginalWorkload.all_k_way(sizes, 3)
    X = _data(sizes, 50, 5)
    true = wl.workload_answers(X)
    meas = measure(wl, X, np.zeros(len(wl.residuals)), np.random.default_rng(0))
    for est in (blue(meas), truncate_rescale(wl, blue(meas), 50), grem_lnn(meas)):
        assert np.allclose(est, true, atol=1e-9)
    noisy = residual_planner(wl, X, 0.3, 1e-9, np.random.default_rng(1))
    est = grem_lnn(noisy, tol=1e-6)
    tabs = dict(zip(wl.sets, wl.split_workload(est)))
    for w1, w2 in itertools.combinations(wl.sets, 2):
        shared = sorted(set(w1) & set(w2))
        m1 = tabs[w1].sum(axis=tuple(p for p, a in enumerate(w1) if a not in shared))
        m2 = tabs[w2].sum(axis=tuple(p for p, a in enumerate(w2) if a not in shared))
        assert np.allclose(m1, m2, atol=1e-4)
    tr = truncate_rescale(wl, blue(noisy), 50)
    assert tr.min() >= 0 and all(np.isclose(t.sum(), 50) for t in wl.split_workload(tr))


@pytest.mark.skipif(not (DATA_DIR / "titanic.csv").exists(), reason="shared benchmark data not present")
def test_csv_columns_are_mapped_by_name():
    X, names, sizes = load_csv_domain("titanic")
    with open(DATA_DIR / "titanic.csv") as fh:
        header = fh.readline().strip().split(",")
        first = [int(v) for v in fh.readline().strip().split(",")]
    assert names[0] != header[0]  # the JSON order differs from the header
    assert [X[0, names.index(h)] for h in header] == first
    assert np.all(X.max(axis=0) < np.array(sizes))


def test_harness_error_metrics():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from marginals_peers import errors

    wl = MarginalWorkload.all_k_way((2, 3, 2), 2)
    X = _data((2, 3, 2), 20, 7)
    true = wl.workload_answers(X)
    est = true + np.random.default_rng(0).normal(size=true.size)
    l1, rmse = errors(wl, est, true, 20)
    tabs_e, tabs_t = wl.split_workload(est), wl.split_workload(true)
    assert l1 == pytest.approx(np.mean([np.abs(a - b).sum() for a, b in zip(tabs_e, tabs_t)]) / 20)
    assert rmse == pytest.approx(np.sqrt(np.mean((est - true) ** 2)))


# ------------------------------------------------------------------ paired design (common random numbers)


def _paired_setup(sizes, m, seed):
    from marginals_peers import measurement_from_release

    from sosproj.data.domain import Dataset, Domain

    X = _data(sizes, m, seed)
    # sosproj sees the attributes in another order than the harness (as for the real datasets)
    perm = list(range(len(sizes)))[::-1]
    ds = Dataset(X[:, perm], Domain.from_sizes([sizes[i] for i in perm]))
    attr_map = [perm.index(i) for i in range(len(sizes))]
    return X, ds, attr_map, measurement_from_release


@pytest.mark.parametrize("sizes", [(2, 3, 4, 2), (2, 2, 2, 2, 2)])
def test_paired_measurement_equals_peer_rp_noise_free_and_in_scales(sizes):
    """sosproj's alloc=rp measurement, read in the peers' layout, is the peer code's RP measurement:
    the same scales (same shape and exact sensitivity) and, noise off, the same residuals."""
    import sosproj as sp
    from sosproj.testing import noise_disabled

    X, ds, attr_map, from_release = _paired_setup(sizes, 300, 1)
    wl = MarginalWorkload.all_k_way(sizes, 3)
    eps, delta = 0.7, 1e-9
    sig_peer, _ = calibrated_sigmas(wl, rp_allocation_shape(wl), eps, delta)
    rel = sp.release_marginals(ds, 3, epsilon=eps, delta=delta, rng=5, allocation="rp", reconstruction="blue")
    meas = from_release(rel, wl, attr_map)
    np.testing.assert_allclose(meas.sigmas, sig_peer, rtol=1e-10)
    with noise_disabled():
        rel0 = sp.release_marginals(ds, 3, epsilon=eps, delta=delta, rng=5, allocation="rp",
                                    reconstruction="blue")
    exact = measure(wl, X, np.zeros(len(wl.residuals)), np.random.default_rng(0))
    np.testing.assert_allclose(from_release(rel0, wl, attr_map).r, exact.r, atol=1e-9)
    # the noise of the paired measurement is P_A sigma_A z with the scales above
    noise = (meas.r - exact.r) / wl.residual_sigmas_flat(meas.sigmas)
    assert np.abs(noise - wl.project(noise)).max() < 1e-9 and noise.std() > 0.1
    # the peers' BLUE of the paired measurement is sosproj's BLUE release
    tabs = np.concatenate([np.asarray(rel.table([attr_map[i] for i in w]), float).ravel() for w in wl.sets])
    np.testing.assert_allclose(blue(meas), tabs, atol=1e-8)


def test_default_and_rp_allocations_draw_the_same_standard_normals():
    """Common random numbers: for one seed, the default allocation's noise is the rp allocation's noise
    rescaled per residual (sigma_A^auto / sigma_A^rp): the same standard-normal stream."""
    import sosproj as sp

    sizes = (2, 3, 4, 2, 3)
    X, ds, attr_map, from_release = _paired_setup(sizes, 200, 2)
    wl = MarginalWorkload.all_k_way(sizes, 3)
    exact = measure(wl, X, np.zeros(len(wl.residuals)), np.random.default_rng(0))
    z = []
    for alloc in ("rp", "auto"):
        rel = sp.release_marginals(ds, 3, epsilon=0.2, delta=1e-9, rng=11, allocation=alloc, reconstruction="blue")
        meas = from_release(rel, wl, attr_map)
        sig = wl.residual_sigmas_flat(meas.sigmas)
        z.append((meas.r - exact.r) / sig)
    assert not np.allclose(rel.info["auto_mix"], 0.0)             # the two allocations differ
    # the default's skip rule leaves sets unmeasured (sigma = inf: no noise, residual 0); on the measured
    # ones the standard normals are the rp allocation's
    on = np.isfinite(sig)
    assert 0 < on.sum() < on.size
    np.testing.assert_allclose(z[0][on], z[1][on], atol=1e-9)


# ------------------------------------------------------------------ planted data and the harness's memory figure


def test_planted_data_are_fixed_and_public_convention():
    """planted32 / planted64: m = 20,000 binary records from the fixed data seed 0 (the same data every run)."""
    from peers.data import load, planted

    X, names, sizes = load("planted32")
    assert X.shape == (20000, 32) and sizes == [2] * 32 and names == [f"a{i}" for i in range(32)]
    assert set(np.unique(X)) == {0, 1}
    np.testing.assert_array_equal(X, planted(32))
    assert not np.array_equal(planted(8, m=500, seed=0), planted(8, m=500, seed=1))


def test_planted_sosproj_path_is_exact_noise_off_and_paired_with_the_peers():
    """The harness's planted path (attribute i = sosproj attribute i): noise off, the default release and the
    tables peer answer every workload marginal exactly; with noise, the peers' BLUE of the paired
    measurement is sosproj's alloc=rp BLUE release."""
    from marginals_peers import _dataset, run_sosproj, run_tables, sosproj_rp_measurement

    import sosproj as sp
    from sosproj.data.synthetic import planted_binary
    from sosproj.testing import noise_disabled

    n = 6
    X = planted_binary(400, n, n_clusters=4, rng=3).astype(np.int64)
    names, sizes = [f"a{i}" for i in range(n)], [2] * n
    wl = MarginalWorkload.all_k_way(sizes, 3)
    true = wl.workload_answers(X)
    with noise_disabled():
        assert run_sosproj("planted6", "sosproj", wl, X, names, sizes, true, 1.0, 0)["l1"] < 1e-3  # solver tol
        assert run_tables(wl, X, true, 1.0, 0)["l1"] < 1e-3
    meas = sosproj_rp_measurement("planted6", wl, X, names, sizes, 0.5, 4)
    ds, attr_map = _dataset("planted6", X, names, sizes)
    assert attr_map == list(range(n))
    rel = sp.release_marginals(ds, 3, epsilon=0.5, delta=1e-9, rng=4, allocation="rp", reconstruction="blue")
    tabs = np.concatenate([np.asarray(rel.table(list(w)), float).ravel() for w in wl.sets])
    np.testing.assert_allclose(blue(meas), tabs, atol=1e-8)
    assert np.abs(blue(meas) - true).max() > 1.0                     # the noise is on


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc (RSS high-water mark)")
def test_timer_rss_peak_covers_an_allocation_made_inside_the_block():
    """peak_rss_mib is reset at the block's start: it sees an 80 MB array allocated (and freed) inside the
    block, and a later block that allocates little reports less than that peak (without the reset both
    would report the 240 MB allocated before them)."""
    from marginals_peers import Timer

    big = np.ones(30_000_000)                                     # 240 MB, resident before the first block
    del big
    with Timer() as t1:
        a = np.ones(10_000_000)                                   # 80 MB
        a[::512] = 2.0
        del a
    with Timer() as t2:
        b = np.ones(1000)
        del b
    assert t1.peak_rss_mib > t2.peak_rss_mib + 60
    assert math.isnan(t1.peak_mib)                                # no tracemalloc outside traced runs

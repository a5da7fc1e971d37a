"""The skip rule of the ``"auto"`` allocation (unmeasured residual sets): exact sensitivity, public choice,
no data in skipped sets, the max-entropy extrapolation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_marginals_pipeline import assert_sensitivity_is_brute_force

from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency, PrivacySpec
from sosproj.testing import noise_disabled


def _data(sizes, m, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, size=m)
    cols = [np.where(z == 0, rng.integers(0, s, size=m), (z + rng.integers(0, 2, size=m)) % s) for s in sizes]
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


def _noisy_residuals(sizes, k, seed, scale, m, sigma, unmeasured=()):
    """A centred random residual vector on all ``k``-way sets of ``sizes`` (total ``m``), the noise scales ``sigma``
    on every set (0 on the empty set), and the ``unmeasured`` sets at ``sigma = inf`` with zero residual: the
    shrinkage tests' measurement, before its :class:`~sosproj.mechanisms.marginals_pipeline.Measurement`."""
    lay = ResidualLayout(sizes, all_k_way(len(sizes), k))
    r = np.random.default_rng(seed).normal(size=lay.res_size) * scale
    lay.center(r)
    r[lay.empty_pos] = m
    sig = np.full(len(lay.residual_sets), float(sigma))
    sig[lay.res_pos[()]] = 0.0
    for A in unmeasured:
        sig[lay.res_pos[A]] = np.inf
    r[lay.expand((~np.isfinite(sig)).astype(float)) > 0] = 0.0
    return lay, r, sig


def _measurement(lay, r, sig, m):
    """The ``"auto"`` measurement of ``r.copy()`` with noise scales ``sig`` under replace-one, epsilon 1."""
    spec = PrivacySpec(epsilon=1.0, delta=1e-6, adjacency=Adjacency.REPLACE_ONE, sensitivity=1.0)
    return mp.Measurement(lay, r.copy(), sig, spec, "auto", m)


def _args(eps=1.0, adjacency=Adjacency.REPLACE_ONE):
    return {"epsilon": eps, "delta": 1e-6, "adjacency": adjacency, "calibration": "analytic"}


@pytest.mark.parametrize("sizes, workload", [
    ((2, 3, 3, 4), None),                 # symmetric classes (the class search)
    ((3, 2, 4), [(0, 1), (1, 2)]),        # non-symmetric workload: all 2^n patterns
    ((3, 3, 3), [(0, 1, 2)]),             # 3-way
])
@pytest.mark.parametrize("drop", ["supersets-of-0", "one-pair", "all-but-one"])
def test_sensitivity_with_skipped_sets_equals_brute_force(sizes, workload, drop):
    """s_A = inf (a skipped set) in the exact sensitivity: equal to the brute force over all record pairs."""
    wl = all_k_way(len(sizes), 2) if workload is None else workload
    lay = ResidualLayout(sizes, wl)
    s = mp.allocation_shape(lay, "auto", m=100, epsilon=0.5).copy()
    sets = lay.residual_sets
    if drop == "supersets-of-0":
        off = [i for i, A in enumerate(sets) if 0 in A and len(A) >= 2]
    elif drop == "one-pair":
        off = [next(i for i, A in enumerate(sets) if len(A) == 2)]
    else:
        off = [i for i, A in enumerate(sets) if A][1:]
    s[off] = np.inf
    assert_sensitivity_is_brute_force(lay, s)


def _measured_sets_all_pairs(lay, s, spec_args, m, threshold):
    """The rule as first written (all-pairs maximality test): the reference for the immediate-superset version."""
    from sosproj.privacy.calibration import gaussian_sigma
    sets = lay.residual_sets
    keep = np.ones(len(sets), dtype=bool)
    taus = [float(threshold)] if np.ndim(threshold) == 0 else [float(x) for x in threshold]
    if max(taus) <= 0:
        return keep
    tau_set = np.array([taus[min(len(A), len(taus)) - 1] if A else 0.0 for A in sets])
    members = [set(A) for A in sets]
    while int(keep.sum()) > 2:
        sk = np.where(keep, s, np.inf)
        sens = mp.residual_sensitivity(lay, sk, spec_args["adjacency"])["sensitivity"]
        snr = mp.set_snr(lay, gaussian_sigma(spec_args["epsilon"], spec_args["delta"], sens,
                                             spec_args["calibration"]) * sk, m)
        maximal = np.array([keep[i] and bool(A) and not any(keep[j] and a < members[j] for j in range(len(sets)))
                            for i, (A, a) in enumerate(zip(sets, members, strict=True))])
        low = np.flatnonzero(maximal & (snr < tau_set))
        if low.size == 0:
            break
        if low.size >= int(keep.sum()) - 1:
            low = low[low != low[np.argmax(snr[low])]]
        keep[low] = False
    return keep


@pytest.mark.parametrize("sizes, workload", [
    ((3, 4, 2, 9, 5), all_k_way(5, 3)),
    ((2, 7, 3, 3, 12, 4), all_k_way(6, 3)),
    ((5, 3, 4, 6), [(0, 1, 2), (1, 3), (2, 3), (0, 3)]),   # a closure that is not all k-way
])
@pytest.mark.parametrize("tau", [1.0, 5.0, (5.0, 5.0, 8.0), (2.0, 30.0), 1e6])
def test_measured_sets_equals_the_all_pairs_rule(sizes, workload, tau):
    """The immediate-superset maximality test keeps exactly the sets the all-pairs test keeps (several rounds)."""
    lay = ResidualLayout(sizes, workload)
    for m, eps in ((300, 0.3), (2000, 1.0)):
        s = mp.allocation_shape(lay, "auto", m=m, epsilon=eps)
        assert np.array_equal(mp.measured_sets(lay, s, _args(eps), m, tau),
                              _measured_sets_all_pairs(lay, s, _args(eps), m, tau))


def test_measured_sets_closed_under_subsets_monotone_and_above_threshold():
    lay = ResidualLayout((3, 4, 2, 9, 5), all_k_way(5, 3))
    o = np.array([len(A) for A in lay.residual_sets])
    prev = None
    for tau in (0.0, 0.5, 1.0, 3.0, 10.0, 1e6):
        s = mp.allocation_shape(lay, "auto", m=400, epsilon=1.0)
        keep = mp.measured_sets(lay, s, _args(), 400, tau)
        kept = {A for A, k in zip(lay.residual_sets, keep, strict=True) if k}
        assert () in kept and sum(1 for A in kept if A) >= 1
        assert all(B in kept for A in kept for r in range(len(A)) for B in itertools.combinations(A, r))
        if tau == 0.0:
            assert keep.all()
        if prev is not None:
            assert not np.any(keep & ~prev)          # a higher threshold never measures more
        prev = keep
        sig, _, info = mp.noise_scales(lay, "auto", _args(), 400, skip=tau)
        assert np.array_equal(np.isfinite(sig), keep)
        assert info["unmeasured_sets"] == [A for A, k in zip(lay.residual_sets, keep, strict=True) if not k]
        # the bars hold at the calibration the rule decided on: the uncorrected scales (the L1 correction,
        # WIDE_L1_GAMMA, then moves budget between the kept sets; its report keeps those scales)
        snr = mp.set_snr(lay, sig if info["band_sigmas"] is None else info["band_sigmas"], 400)
        maximal = [i for i, A in enumerate(lay.residual_sets) if keep[i] and A
                   and not any(keep[j] and set(A) < set(B) for j, B in enumerate(lay.residual_sets))]
        if sum(1 for A in kept if A) > 1:
            assert np.all(snr[maximal] >= tau)
    assert (o[keep] <= 1).all()                      # tau = 1e6: a single 1-way set is left


def test_skip_rule_reads_no_records_and_skipped_sets_release_nothing():
    """Two datasets, same public parameters: same noise scales and unmeasured sets; skipped residuals are 0
    whatever the records; the measured sets get the same standard normals as without skipping."""
    sizes = (3, 4, 2, 9, 5)
    a, b = _data(sizes, 300, seed=1), _data(sizes, 300, seed=2)
    assert not np.array_equal(a.records, b.records)
    ra = mp.release(a, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0)
    rb = mp.release(b, 3, epsilon=1.0, delta=1e-6, rng=5, _skip=2.0)
    assert ra.info["unmeasured_sets"] == rb.info["unmeasured_sets"] and ra.info["unmeasured_sets"]
    assert ra.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == rb.spec
    lay = ResidualLayout(sizes, all_k_way(5, 3))
    sig, spec, _ = mp.noise_scales(lay, "auto", _args(), 300, skip=2.0)
    sig0, spec0, _ = mp.noise_scales(lay, "auto", _args(), 300, skip=0.0)
    assert spec.sensitivity < spec0.sensitivity
    true_a = lay.residuals_of_tables([a.marginal(w) for w in lay.workload])
    ma = mp.measure(a, lay, sig, spec, "auto", np.random.default_rng(3))
    mb = mp.measure(b, lay, sig, spec, "auto", np.random.default_rng(3))
    m0 = mp.measure(a, lay, sig0, spec0, "auto", np.random.default_rng(3))
    off = lay.expand((~np.isfinite(sig)).astype(float)) > 0
    assert off.any() and np.all(ma.residuals[off] == 0.0) and np.all(mb.residuals[off] == 0.0)
    on = ~off & (lay.expand(sig) > 0)
    z_skip = (ma.residuals - true_a)[on] / lay.expand(sig)[on]
    z_all = (m0.residuals - true_a)[on] / lay.expand(sig0)[on]
    assert np.allclose(z_skip, z_all, rtol=1e-9, atol=1e-9)
    w = ma.weights                                   # skipped sets: weight 0 (not measured)
    assert np.all(np.isfinite(w)) and np.all(w[~np.isfinite(sig)] == 0)


def test_one_way_measured_only_extrapolates_to_the_product():
    """Noise-free residuals with only the 1-way sets measured: the released tables are the products of the
    1-way tables (the maximum-entropy extrapolation), not the additive (c_A = 0) one."""
    sizes = (3, 4, 5)
    ds = _data(sizes, 500, seed=4)
    lay = ResidualLayout(sizes, all_k_way(3, 3))
    r = lay.residuals_of_tables([ds.marginal(w) for w in lay.workload])
    sig = np.array([0.0 if not A else (1.0 if len(A) == 1 else np.inf) for A in lay.residual_sets])
    r[lay.expand((~np.isfinite(sig)).astype(float)) > 0] = 0.0
    spec = PrivacySpec(epsilon=1.0, delta=1e-6, adjacency=Adjacency.REPLACE_ONE, sensitivity=1.0)
    meas = mp.Measurement(lay, r, sig, spec, "auto", 500)
    out, info = mp._reconstruct_skipped(meas, "lnn", {"tol": 1e-6, "max_iter": 5000})
    one = [ds.marginal((i,)) / 500 for i in range(3)]
    prod = 500 * np.einsum("i,j,k->ijk", *one)
    assert np.allclose(lay.marginal(out, (0, 1, 2)), prod, atol=1e-6)
    assert np.allclose(lay.marginal(out, (0, 2)), 500 * np.outer(one[0], one[2]), atol=1e-6)
    assert info["extrapolation"] == "max-entropy"
    assert "extrapolation_projection" not in info and info["extrapolation_exact"] and info["converged"]
    assert info["ipf_unmet"] < 1e-9


def test_ipf_table_matches_decomposable_closed_form():
    rng = np.random.default_rng(0)
    ab = rng.random((3, 4)) * 10
    m = ab.sum()
    c = rng.dirichlet(np.ones(5)) * m
    t = mp.ipf_table((3, 4, 5), {(0, 1): ab, (2,): c}, m)
    assert np.allclose(t, ab[:, :, None] * c[None, None, :] / m)
    z = ab.copy()
    z[0] = 0.0
    t = mp.ipf_table((3, 4, 5), {(0, 1): z * m / z.sum(), (2,): c}, m)
    assert np.all(t[0] == 0.0) and np.isclose(t.sum(), m)


@pytest.mark.parametrize("reconstruction", ["auto", "lnn", "blue"])
def test_release_with_skipped_sets_consistent_nonnegative(reconstruction):
    sizes = (3, 4, 2, 9, 5)
    ds = _data(sizes, 300, seed=1)
    rel = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0, reconstruction=reconstruction)
    assert rel.info["unmeasured_sets"]
    tabs = [rel.table(w) for w in itertools.combinations(range(5), 3)]
    assert all(np.isclose(t.sum(), 300) for t in tabs)
    assert np.allclose(tabs[0].sum(axis=2), rel.table((0, 1)))          # (0, 1, 2) -> (0, 1)
    if reconstruction != "blue":
        assert min(t.min() for t in tabs) >= -1e-9
    with noise_disabled():
        rel = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0, reconstruction=reconstruction)
    kept = [A for A in rel.layout.residual_sets if A and A not in rel.info["unmeasured_sets"]]
    top = max(kept, key=len)
    assert np.allclose(rel.table(top), ds.marginal(top), atol=0.05)     # measured sets: exact without noise


def test_skip_rule_applies_to_the_categorical_auto_allocation_only():
    """Binary data, the rp / equal-tables allocations and lnn-psd measure every set (unchanged releases)."""
    cat = ResidualLayout((3, 4, 2, 9), all_k_way(4, 3))
    binary = ResidualLayout((2,) * 5, all_k_way(5, 3))
    assert mp.skip_threshold(cat, "auto") == mp.AUTO_SKIP_SNR and min(mp.AUTO_SKIP_SNR) > 0
    assert mp.skip_threshold(cat, "auto", "lnn-psd") == (0.0, 0.0)
    for lay, alloc in ((binary, "auto"), (cat, "rp"), (cat, "equal-tables")):
        assert mp.skip_threshold(lay, alloc) == (0.0, 0.0)
        sig, _, info = mp.noise_scales(lay, alloc, _args(0.05), 200)
        assert np.isfinite(sig).all() and info["unmeasured_sets"] == []


def test_add_remove_skip_rule_uses_public_m_only():
    """Under add/remove the skip rule reads the declared public_m, never the private record count."""
    sizes = (3, 4, 2, 9, 5)
    a, b = _data(sizes, 200, seed=1), _data(sizes, 900, seed=2)
    kw = {"epsilon": 0.5, "delta": 1e-6, "adjacency": "add-remove", "public_m": 500}
    ra = mp.release(a, 3, rng=0, **kw)
    rb = mp.release(b, 3, rng=3, **kw)
    assert ra.info["unmeasured_sets"] == rb.info["unmeasured_sets"] and ra.info["unmeasured_sets"]
    assert ra.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == rb.spec
    lay = ResidualLayout(sizes, all_k_way(5, 3))
    keep = mp.measured_sets(lay, mp.allocation_shape(lay, "auto", m=500, epsilon=0.5, mix=ra.info["auto_mix"]),
                            _args(0.5, Adjacency.ADD_REMOVE), 500, mp.AUTO_SKIP_SNR)
    assert ra.info["unmeasured_sets"] == [A for A, k in zip(lay.residual_sets, keep, strict=True) if not k]


def test_per_order_thresholds_public_and_binding():
    """The default's thresholds per residual order (``AUTO_SKIP_SNR = (tau_1, tau_2, tau_3)``): every kept maximal set
    clears its own order's bar; a 2-tuple is the 3-tuple with its last entry repeated; the higher bar for 3-way sets
    never measures more; two datasets with the same public parameters get identical noise scales."""
    assert len(mp.AUTO_SKIP_SNR) == 3 and mp.AUTO_SKIP_SNR[2] > mp.AUTO_SKIP_SNR[1] > 0
    sizes = (3, 4, 2, 9, 5, 3)
    lay = ResidualLayout(sizes, all_k_way(6, 3))
    sets = lay.residual_sets
    s = mp.allocation_shape(lay, "auto", m=1000, epsilon=1.0)
    assert np.array_equal(mp.measured_sets(lay, s, _args(), 1000, (5.0, 5.0)),
                          mp.measured_sets(lay, s, _args(), 1000, (5.0, 5.0, 5.0)))
    k5 = mp.measured_sets(lay, s, _args(), 1000, (5.0, 5.0))
    k8 = mp.measured_sets(lay, s, _args(), 1000, (5.0, 5.0, 8.0))
    order = np.array([len(A) for A in sets])
    assert ((order == 3) & k5 & ~k8).any()                       # the 3-way bar binds on this shape
    assert not ((order == 3) & k8 & ~k5).any()
    sig, _, info = mp.noise_scales(lay, "auto", _args(), 1000, skip=(5.0, 5.0, 8.0))
    snr = mp.set_snr(lay, sig, 1000)
    maximal = [i for i, A in enumerate(sets) if k8[i] and A
               and not any(k8[j] and set(A) < set(B) for j, B in enumerate(sets))]
    assert maximal and all(snr[i] >= (8.0 if len(sets[i]) >= 3 else 5.0) for i in maximal)
    a, b = _data(sizes, 1000, seed=4), _data(sizes, 1000, seed=5)
    assert not np.array_equal(a.records, b.records)
    ra = mp.release(a, 3, epsilon=1.0, delta=1e-6, rng=0)
    rb = mp.release(b, 3, epsilon=1.0, delta=1e-6, rng=7)
    assert ra.info["skip_threshold"] == mp.AUTO_SKIP_SNR
    assert ra.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == rb.spec
    assert ra.info["unmeasured_sets"] == rb.info["unmeasured_sets"]
    for rel, ds in ((ra, a), (rb, b)):
        tabs = [rel.table(w) for w in rel.workload]
        assert min(t.min() for t in tabs) >= -1e-9 and all(abs(t.sum() - ds.m) < 1e-6 for t in tabs)


def test_drop_fraction_knob_keeps_the_rule_invariants(monkeypatch):
    """The study knob ``SKIP_DROP_FRACTION`` (drop only the lowest share of the low sets per round): the kept family
    is still closed under subsets, every kept maximal set clears its bar, and on this shape it keeps at least the sets
    of the all-at-once rule (fewer sets dropped per round, so their budget lifts the others)."""
    lay = ResidualLayout((3, 4, 2, 9, 5, 3), all_k_way(6, 3))
    sets = lay.residual_sets
    s = mp.allocation_shape(lay, "auto", m=1000, epsilon=1.0)
    k_all = mp.measured_sets(lay, s, _args(), 1000, (5.0, 5.0, 8.0))
    monkeypatch.setattr(mp, "SKIP_DROP_FRACTION", 0.5)
    keep = mp.measured_sets(lay, s, _args(), 1000, (5.0, 5.0, 8.0))
    kept = {A for A, k in zip(sets, keep, strict=True) if k}
    assert all(B in kept for A in kept for r in range(len(A)) for B in itertools.combinations(A, r))
    assert not np.any(k_all & ~keep)
    sig, _, info = mp.noise_scales(lay, "auto", _args(), 1000, skip=(5.0, 5.0, 8.0))
    snr = mp.set_snr(lay, sig if info["band_sigmas"] is None else info["band_sigmas"], 1000)   # the rule's own scales
    maximal = [i for i, A in enumerate(sets) if keep[i] and A
               and not any(keep[j] and set(A) < set(B) for j, B in enumerate(sets))]
    assert all(snr[i] >= (8.0 if len(sets[i]) >= 3 else 5.0) for i in maximal)


def test_one_way_cell_bar_knob_is_off_by_default_public_and_binding(monkeypatch):
    """The session-31 study knobs ``ONE_WAY_CELL_SNR`` / ``ONE_WAY_FLOOR`` (a size-dependent 1-way bar
    ``min(tau_1, max(F, b sqrt(n_i)))``; not adopted, ``benchmarks/results_catrule/pubrule31/``): off by default (the
    rule is ``AUTO_SKIP_SNR`` alone); when set, every kept maximal 1-way set clears its own bar, the bar binds (some
    small attribute below ``tau_1`` is measured), a ``b`` so large that ``min`` is ``tau_1`` gives the rule itself, and
    the choice reads no records (two datasets with the same public parameters: identical noise scales)."""
    assert mp.ONE_WAY_CELL_SNR is None and mp.ONE_WAY_FLOOR == 0.0
    TH = (5.0, 5.0, 8.0)                                     # session 29's rule, the study's baseline
    sizes = (3, 3, 2, 30, 9, 7, 12)
    m, eps = 1300, 0.1
    lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
    sets = lay.residual_sets
    s = mp.allocation_shape(lay, "auto", m=m, epsilon=eps)
    rule = mp.measured_sets(lay, s, _args(eps), m, TH)
    monkeypatch.setattr(mp, "ONE_WAY_CELL_SNR", 100.0)
    assert np.array_equal(mp.measured_sets(lay, s, _args(eps), m, TH), rule)
    for b, floor in ((0.9, 0.0), (0.7, 2.0)):
        monkeypatch.setattr(mp, "ONE_WAY_CELL_SNR", b)
        monkeypatch.setattr(mp, "ONE_WAY_FLOOR", floor)
        keep = mp.measured_sets(lay, s, _args(eps), m, TH)
        kept = {A for A, k in zip(sets, keep, strict=True) if k}
        assert all(B in kept for A in kept for r in range(len(A)) for B in itertools.combinations(A, r))
        sig, _, _ = mp.noise_scales(lay, "auto", _args(eps), m, skip=TH)
        snr = mp.set_snr(lay, sig, m)
        maximal = [i for i, A in enumerate(sets) if keep[i] and A
                   and not any(keep[j] and set(A) < set(B) for j, B in enumerate(sets))]
        bar = {i: min(TH[0], max(floor, b * np.sqrt(sizes[sets[i][0]]))) for i in maximal
               if len(sets[i]) == 1}
        assert bar and all(snr[i] >= bar[i] for i in bar)
        assert any(snr[i] < TH[0] for i in bar)        # the size-dependent bar binds here
        a, c = _data(sizes, m, seed=4), _data(sizes, m, seed=5)
        ra = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
        rc = mp.release(c, 3, epsilon=eps, delta=1e-6, rng=7)
        assert ra.info["noise_scales"] == rc.info["noise_scales"]
        assert ra.info["unmeasured_sets"] == rc.info["unmeasured_sets"]


def test_shrink_one_way_is_the_positive_part_james_stein_on_low_snr_one_way_sets_only():
    """``shrink_one_way``: a measured 1-way residual with public set SNR below the band and ``q = n_i - 1 >= 3`` becomes
    ``max(0, 1 - c (q - 2) sigma^2 / ||y||^2) y`` (recomputed here from the formula); every other residual (sets of
    order >= 2, 1-way sets with ``q < 3``, above the band, unmeasured) and the noise scales are unchanged
    (post-processing); the clamp at 0 when ``||y||^2 < c (q - 2) sigma^2``."""
    m = 1000
    lay, r, sig = _noisy_residuals((6, 3, 5, 4), 2, 3, 40.0, m, 30.0, unmeasured=[(3,)])   # unmeasured: untouched
    sets = lay.residual_sets
    small = lay.residual(r, (2,))
    small *= 1e-3                                            # ||y||^2 far below (q - 2) sigma^2: clamped to 0
    meas = _measurement(lay, r, sig, m)
    snr = mp.set_snr(lay, sig, m)
    band = float(max(snr[lay.res_pos[(A,)]] for A in range(3)) + 1.0)   # every measured 1-way set below it
    out, done = mp.shrink_one_way(meas, m, 1.0, band)
    assert done == [(0,), (2,)] and out.sigmas is meas.sigmas
    y0 = lay.residual(r, (0,))
    f0 = max(0.0, 1.0 - 1.0 * (6 - 1 - 2) * 30.0**2 / float(y0 @ y0))
    assert 0.0 < f0 < 1.0
    np.testing.assert_allclose(lay.residual(out.residuals, (0,)), f0 * y0, rtol=1e-13)
    assert np.all(lay.residual(out.residuals, (2,)) == 0.0)
    for A in sets:
        if A not in ((0,), (2,)):
            assert np.array_equal(lay.residual(out.residuals, A), lay.residual(r, A))
    assert np.array_equal(meas.residuals, r)                 # the input measurement is not modified
    out2, done2 = mp.shrink_one_way(meas, m, 1.0, float(snr[lay.res_pos[(0,)]]) * 0.5)
    assert done2 == [] and np.array_equal(out2.residuals, r)


def test_one_way_shrinkage_in_the_release_is_post_processing_of_public_sets(monkeypatch):
    """In ``release`` the shrinkage (``ONE_WAY_SHRINK > 0``, the categorical skip rule active) leaves the noise scales,
    the specification and the unmeasured sets exactly those without it (the privacy is that of the measurement), shrinks
    exactly the measured 1-way sets whose public set SNR is below the band (``q >= 3``), reads no records for that
    choice (two datasets, same public parameters: same sets), and is off without noise (``noise_disabled``) and for the
    ``"rp"`` allocation (no skip rule)."""
    sizes = (3, 3, 2, 30, 9, 7, 12)
    m, eps = 1300, 0.3
    a, b = _data(sizes, m, seed=4), _data(sizes, m, seed=5)
    monkeypatch.setattr(mp, "AUTO_SKIP_SNR", (2.5, 5.0, 8.0))
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK", 0.0)
    r0 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK", 1.0)
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK_BAND", 5.0)
    ra = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    rb = mp.release(b, 3, epsilon=eps, delta=1e-6, rng=7)
    assert ra.info["noise_scales"] == r0.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == r0.spec
    assert ra.info["unmeasured_sets"] == r0.info["unmeasured_sets"]
    lay = ra.layout
    sig = np.array([ra.info["noise_scales"].get(A, 0.0) for A in lay.residual_sets])
    # the bands read the uncorrected scales of the same measured family (WIDE_L1_BAND_UNCORRECTED)
    args = {"epsilon": eps, "delta": 1e-6, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    sig_pub, _, sens = mp.noise_scales(lay, "auto", args, m, mix=ra.info["auto_mix"])
    assert np.array_equal(sig_pub[1:], sig[1:])
    snr = mp.set_snr(lay, sig if sens["band_sigmas"] is None else sens["band_sigmas"], m)
    expect = [A for i, A in enumerate(lay.residual_sets) if len(A) == 1 and 0 < sig[i] < np.inf and snr[i] < 5.0
              and sizes[A[0]] >= 4]
    # the L1 choice (ONE_WAY_L1_DRAWS) may put a shrunk set's raw table back: together they are the shrunk sets
    for rel in (ra, rb):
        assert sorted(rel.info["shrunk_one_way_sets"] + rel.info["raw_one_way_sets"]) == expect
    assert r0.info["shrunk_one_way_sets"] == []
    assert any(not np.allclose(ra.table(w), r0.table(w)) for w in ra.workload)
    with noise_disabled():
        rn = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    assert rn.info["shrunk_one_way_sets"] == []
    rp = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0, allocation="rp")
    assert rp.info["shrunk_one_way_sets"] == []


def test_shrink_offset_knob(monkeypatch):
    """The study knob ``ONE_WAY_SHRINK_OFFSET`` (default 2: James-Stein, the rule): with 0 the factor is
    ``max(0, 1 - c q sigma^2 / ||y||^2)`` and the 2-3-value attributes (q = 1, 2) are shrunk too."""
    assert mp.ONE_WAY_SHRINK_OFFSET == 2
    sizes = (6, 3, 2)
    lay, r, sig = _noisy_residuals(sizes, 2, 5, 60.0, 1000, 20.0)
    meas = _measurement(lay, r, sig, 1000)
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK_OFFSET", 0)
    out, done = mp.shrink_one_way(meas, 1000, 1.0, 1e9)
    assert done == [(0,), (1,), (2,)]
    for A in done:
        y = lay.residual(r, A)
        q = sizes[A[0]] - 1
        f = max(0.0, 1.0 - q * 20.0**2 / float(y @ y))
        np.testing.assert_allclose(lay.residual(out.residuals, A), f * y, rtol=1e-13)


def test_residual_noise_is_white_on_each_residual_subspace():
    """James-Stein needs isotropic noise: the noise of a measured set is ``sigma_A P_A z`` (``measure``) with
    ``P_A`` = ``layout.center`` on that set's block, an orthogonal projector (symmetric, idempotent) of rank
    ``q_A = prod (n_i - 1)``; so in an orthonormal basis of the residual subspace the noise is ``sigma_A^2 I_q`` and the
    ambient norm is that basis' norm (``shrink_residuals`` needs no whitening)."""
    sizes = (3, 4, 2, 5)
    lay = ResidualLayout(sizes, all_k_way(4, 3))
    for A in [(0,), (1, 3), (0, 1, 3), (0, 2, 3)]:
        base = lay.residual(np.arange(lay.res_size, dtype=float), A).ravel().astype(int)   # the set's positions
        P = np.empty((base.size, base.size))
        for j, pos in enumerate(base):
            e = np.zeros(lay.res_size)
            e[pos] = 1.0
            lay.center(e)
            P[:, j] = e[base]
        np.testing.assert_allclose(P, P.T, atol=1e-14)
        np.testing.assert_allclose(P @ P, P, atol=1e-13)
        assert round(float(np.trace(P))) == int(np.prod([sizes[a] - 1 for a in A]))


def test_shrink_residuals_is_the_positive_part_james_stein_per_order_band():
    """``shrink_residuals(meas, m, c, (B_1, B_2, B_3))``: a measured set of order ``k`` with public set SNR below
    ``B_k`` and ``q_A = prod (n_i - 1) >= 3`` becomes ``max(0, 1 - c (q - 2) sigma^2 / ||y||^2) y``
    (recomputed by hand here);
    sets above their band, with ``q < 3``, of an order whose band is 0, or unmeasured are untouched; the noise scales
    and the input measurement are unchanged."""
    sizes = (4, 3, 2, 5)
    m = 800
    lay, r, sig = _noisy_residuals(sizes, 3, 11, 25.0, m, 20.0, unmeasured=[(0, 1, 3)])   # unmeasured: untouched
    sets = lay.residual_sets
    sig[lay.res_pos[(1, 3)]] = 2.0                           # a high set SNR: above the band
    meas = _measurement(lay, r, sig, m)
    snr = mp.set_snr(lay, sig, m)
    band2 = float(snr[lay.res_pos[(0, 1)]]) * 1.5
    assert snr[lay.res_pos[(1, 3)]] > band2
    out, done = mp.shrink_residuals(meas, m, 1.0, (0.0, band2, 1e9))
    q = {A: int(np.prod([sizes[a] - 1 for a in A])) for A in sets}
    expect = [A for i, A in enumerate(sets) if len(A) >= 2 and q[A] >= 3 and np.isfinite(sig[i])
              and snr[i] < (band2 if len(A) == 2 else 1e9)]
    assert (0, 1) in expect and (0, 2, 3) in expect and (1, 2) not in expect     # q(1, 2) = 2: no James-Stein
    assert done == expect and out.sigmas is meas.sigmas
    for A in sets:
        y = lay.residual(r, A)
        got = lay.residual(out.residuals, A)
        if A in done:
            s2 = float(sig[lay.res_pos[A]]) ** 2
            f = max(0.0, 1.0 - (q[A] - 2) * s2 / float(np.sum(y * y)))
            np.testing.assert_allclose(got, f * y, rtol=1e-13)
        else:
            assert np.array_equal(got, y)
    assert np.array_equal(meas.residuals, r)
    # hand computation of one factor: 2-way set (0, 1), q = 3 * 2 = 6
    y01 = lay.residual(r, (0, 1))
    f01 = 1.0 - 4 * 400.0 / float(np.sum(y01**2))
    np.testing.assert_allclose(lay.residual(out.residuals, (0, 1)), max(f01, 0.0) * y01, rtol=1e-13)
    # shrink_one_way is its 1-way part
    o1, d1 = mp.shrink_one_way(meas, m, 1.0, 1e9)
    o2, d2 = mp.shrink_residuals(meas, m, 1.0, (1e9, 0.0))
    assert d1 == d2 == [(0,), (3,)] and np.array_equal(o1.residuals, o2.residuals)


def test_higher_order_shrinkage_in_the_release_is_post_processing_of_public_sets(monkeypatch):
    """With ``RESIDUAL_SHRINK_BANDS`` on, ``release`` keeps the noise scales and the unmeasured sets, shrinks exactly
    the measured sets of order >= 2 with ``q >= 3`` below their band (``info["shrunk_sets"]``; ``"shrunk_one_way_sets"``
    its 1-way part), the same sets for two datasets with the same public parameters, and nothing without noise or for
    the ``"rp"`` allocation. Bands ``(0, 0)`` shrink no set of order >= 2."""
    sizes = (3, 4, 2, 6, 5, 3)
    m, eps = 3000, 1.0
    a, b = _data(sizes, m, seed=4), _data(sizes, m, seed=5)
    monkeypatch.setattr(mp, "RESIDUAL_SHRINK_BANDS", (0.0, 0.0))
    r0 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    assert all(len(A) == 1 for A in r0.info["shrunk_sets"])
    assert r0.info["shrunk_one_way_sets"] == r0.info["shrunk_sets"]
    monkeypatch.setattr(mp, "RESIDUAL_SHRINK_BANDS", (np.inf, 30.0))
    ra = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    rb = mp.release(b, 3, epsilon=eps, delta=1e-6, rng=7)
    assert ra.info["noise_scales"] == r0.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == r0.spec
    assert ra.info["unmeasured_sets"] == r0.info["unmeasured_sets"]
    lay = ra.layout
    sig = np.array([ra.info["noise_scales"].get(A, 0.0) for A in lay.residual_sets])
    snr = mp.set_snr(lay, sig, m)
    expect = [A for i, A in enumerate(lay.residual_sets) if len(A) >= 2 and 0 < sig[i] < np.inf
              and np.prod([sizes[x] - 1 for x in A]) >= 3 and snr[i] < (np.inf if len(A) == 2 else 30.0)]
    got = [A for A in ra.info["shrunk_sets"] if len(A) >= 2]
    assert expect and any(len(A) == 2 for A in expect) and got == expect
    assert ra.info["shrunk_sets"] == rb.info["shrunk_sets"]
    assert ra.info["shrunk_one_way_sets"] == r0.info["shrunk_one_way_sets"]
    assert any(not np.allclose(ra.table(w), r0.table(w)) for w in ra.workload)
    with noise_disabled():
        rn = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    assert rn.info["shrunk_sets"] == []
    rp = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0, allocation="rp")
    assert rp.info["shrunk_sets"] == []


def test_shrink_residuals_takes_one_constant_per_order():
    """``c = (c_1, c_2)``: the 1-way sets get ``c_1``, every set of order >= 2 ``c_2`` (``RESIDUAL_SHRINK``); the same
    as shrinking the two families separately with their constants."""
    lay, r, sig = _noisy_residuals((5, 4, 4), 3, 2, 30.0, 500, 25.0)
    meas = _measurement(lay, r, sig, 500)
    out, done = mp.shrink_residuals(meas, 500, (1.0, 0.25), (1e9, 1e9, 1e9))
    a, d1 = mp.shrink_residuals(meas, 500, 1.0, (1e9, 0.0))
    b, d2 = mp.shrink_residuals(a, 500, 0.25, (0.0, 1e9, 1e9))
    assert sorted(done) == sorted(d1 + d2) and len(done) == len(lay.residual_sets) - 1
    np.testing.assert_array_equal(out.residuals, b.residuals)
    y = lay.residual(r, (0, 1, 2))
    f = max(0.0, 1.0 - 0.25 * (4 * 3 * 3 - 2) * 25.0**2 / float(np.sum(y * y)))
    assert 0.0 < f < 1.0
    np.testing.assert_allclose(lay.residual(out.residuals, (0, 1, 2)), f * y, rtol=1e-13)


def test_default_shrinks_every_measured_higher_order_set_with_c_one_quarter(monkeypatch):
    """The default (session 32): ``RESIDUAL_SHRINK_BANDS = (inf, inf)``, ``RESIDUAL_SHRINK = 0.25``: every measured set
    of order >= 2 with ``q >= 3`` is shrunk by ``max(0, 1 - 0.25 (q - 2) sigma^2 / ||y||^2)``: the release equals the
    reconstruction of the measurement shrunk by hand (same noise: ``rng``), and differs from the release without it."""
    assert mp.RESIDUAL_SHRINK_BANDS == (np.inf, np.inf) and mp.RESIDUAL_SHRINK == 0.25
    sizes = (3, 4, 2, 6, 5)
    m, eps = 2500, 1.0
    a = _data(sizes, m, seed=8)
    rel = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=3)
    lay = rel.layout
    sig = np.array([rel.info["noise_scales"].get(A, 0.0) for A in lay.residual_sets])
    expect = [A for i, A in enumerate(lay.residual_sets) if len(A) >= 2 and 0 < sig[i] < np.inf
              and np.prod([sizes[x] - 1 for x in A]) >= 3]
    assert expect and [A for A in rel.info["shrunk_sets"] if len(A) >= 2] == expect
    seen = {}
    orig = mp.shrink_residuals

    def spy(meas, m_, c, bands, **kw):
        out, done = orig(meas, m_, c, bands, **kw)
        seen["in"], seen["out"], seen["c"] = meas, out, c
        return out, done
    monkeypatch.setattr(mp, "shrink_residuals", spy)
    rel2 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=3)
    assert seen["c"] == (mp.ONE_WAY_SHRINK, 0.25)
    for A in expect:
        y = lay.residual(seen["in"].residuals, A)
        q = int(np.prod([sizes[x] - 1 for x in A]))
        f = max(0.0, 1.0 - 0.25 * (q - 2) * float(sig[lay.res_pos[A]]) ** 2 / float(np.sum(y * y)))
        np.testing.assert_allclose(lay.residual(seen["out"].residuals, A), f * y, rtol=1e-12)
    assert all(np.array_equal(rel.table(w), rel2.table(w)) for w in rel.workload)
    monkeypatch.setattr(mp, "RESIDUAL_SHRINK_BANDS", (0.0, 0.0))
    rel0 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=3)
    assert any(not np.allclose(rel.table(w), rel0.table(w)) for w in rel.workload)


def test_session34_one_way_study_knobs_off_by_default_and_exact(monkeypatch):
    """The session-34 study knobs (branch oneway34; not adopted, ``benchmarks/results_catrule/oneway34/``), all off by
    default. ``ONE_WAY_SHRINK_SMALL`` (stein31's hybrid): the measured 1-way sets below the band with ``q <= 2`` get
    ``max(0, 1 - c q sigma^2/||y||^2) y``, those with ``q >= 3`` James-Stein's ``q - 2``; ``ONE_WAY_STRONG_BELOW``:
    the sets below it get the factor with ``q``; sets of order 2 are untouched by both (recomputed from the formula)."""
    assert (mp.ONE_WAY_SHRINK_SMALL, mp.ONE_WAY_LOW_SNR_FLOOR, mp.ONE_WAY_STRONG_BELOW) == (False, None, 0.0)
    sizes = (6, 3, 2, 5)
    m = 1000
    lay, r, sig = _noisy_residuals(sizes, 2, 5, 60.0, m, 20.0)
    meas = _measurement(lay, r, sig, m)
    band = float(max(mp.set_snr(lay, sig, m)[lay.res_pos[(a,)]] for a in range(4))) + 1.0   # every 1-way set below
    rule, done = mp.shrink_one_way(meas, m, 1.0, band)
    assert done == [(0,), (3,)]                                   # James-Stein: q >= 3 only
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK_SMALL", True)
    out, done = mp.shrink_one_way(meas, m, 1.0, band)
    assert done == [(0,), (1,), (2,), (3,)]
    for A in done:
        y = lay.residual(r, A)
        q = sizes[A[0]] - 1
        f = max(0.0, 1.0 - (q if q <= 2 else q - 2) * 20.0**2 / float(y @ y))
        np.testing.assert_allclose(lay.residual(out.residuals, A), f * y, rtol=1e-13)
    for A in lay.residual_sets:
        if len(A) == 2:
            assert np.array_equal(lay.residual(out.residuals, A), lay.residual(r, A))
    monkeypatch.setattr(mp, "ONE_WAY_SHRINK_SMALL", False)
    monkeypatch.setattr(mp, "ONE_WAY_STRONG_BELOW", band)
    out, done = mp.shrink_one_way(meas, m, 1.0, band)
    assert done == [(0,), (1,), (2,), (3,)]
    for A in done:
        y = lay.residual(r, A)
        f = max(0.0, 1.0 - (sizes[A[0]] - 1) * 20.0**2 / float(y @ y))
        np.testing.assert_allclose(lay.residual(out.residuals, A), f * y, rtol=1e-13)


def test_session34_low_snr_floor_knob_public_closed_and_binding(monkeypatch):
    """``ONE_WAY_LOW_SNR_FLOOR`` (study knob, off by default): where the rule keeps a single non-empty set (``"one"``)
    or no set of order >= 2 (``"no-higher"``), the rule is re-run with ``tau_1`` = the floor: on a low-SNR shape it
    then keeps more 1-way sets, every kept maximal set clears its bar, the family stays closed under subsets, and the
    choice reads no records (two datasets with the same public parameters: identical noise scales)."""
    sizes = (3, 3, 2, 30, 9, 7, 12)
    m, eps = 1300, 0.03
    lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
    sets = lay.residual_sets
    s = mp.allocation_shape(lay, "auto", m=m, epsilon=eps)
    TH = mp.AUTO_SKIP_SNR
    rule = mp.measured_sets(lay, s, _args(eps), m, TH)
    assert int(rule.sum()) == 2                                   # the empty set and the best one
    for when in ("one", "no-higher"):
        monkeypatch.setattr(mp, "ONE_WAY_LOW_SNR_WHEN", when)
        monkeypatch.setattr(mp, "ONE_WAY_LOW_SNR_FLOOR", 0.0)
        keep = mp.measured_sets(lay, s, _args(eps), m, TH)
        assert {A for A, k in zip(sets, keep, strict=True) if k} == {()} | {(a,) for a in range(len(sizes))}
        monkeypatch.setattr(mp, "ONE_WAY_LOW_SNR_FLOOR", 1.5)
        keep = mp.measured_sets(lay, s, _args(eps), m, TH)
        kept = {A for A, k in zip(sets, keep, strict=True) if k}
        assert 2 < len(kept) < len(sizes) + 1 and all(len(A) <= 1 for A in kept)
        sig, _, _ = mp.noise_scales(lay, "auto", _args(eps), m, skip=TH)
        snr = mp.set_snr(lay, sig, m)
        assert all(snr[lay.res_pos[A]] >= 1.5 for A in kept if A)
        a, c = _data(sizes, m, seed=4), _data(sizes, m, seed=5)
        ra = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
        rc = mp.release(c, 3, epsilon=eps, delta=1e-6, rng=7)
        assert ra.info["noise_scales"] == rc.info["noise_scales"]
        assert ra.info["unmeasured_sets"] == rc.info["unmeasured_sets"]


def _one_way_measurement(counts_list, sigma, m, seed=0):
    """A measurement of the 1-way sets only: residual = counts - m/n plus noise ``sigma P z`` (as ``measure``)."""
    sizes = tuple(len(c) for c in counts_list)
    lay = ResidualLayout(sizes, [(i,) for i in range(len(sizes))])
    r = np.zeros(lay.res_size)
    r[lay.empty_pos] = m
    rng = np.random.default_rng(seed)
    for i, c in enumerate(counts_list):
        z = rng.standard_normal(len(c))
        lay.residual(r, (i,))[...] = np.asarray(c, float) - m / len(c) + sigma * (z - z.mean())
    sig = np.full(len(lay.residual_sets), float(sigma))
    sig[lay.res_pos[()]] = 0.0
    return lay, _measurement(lay, r, sig, m)


def test_the_l1_choice_keeps_the_shrunk_table_of_a_flat_attribute_and_the_raw_table_of_a_concentrated_one():
    """``select_one_way_estimate``: an attribute with 56% / 21% of the records on two of 32 values (titanic's Fare) at
    a noise of 80 counts per cell gets its raw table back (its non-negative projection thresholds the noise away,
    James-Stein spreads the spike over every cell); a nearly uniform one keeps the shrunk table. The decision reads
    the noisy residuals, the public noise scale and its own generator only, and is reproducible from it."""
    m, sigma = 1300, 80.0
    spike = np.r_[0.56, 0.21, 0.05, 0.05, 0.05, 0.01, np.full(26, 0.07 / 26)] * m
    flat = np.full(32, m / 32) + np.tile([3.0, -3.0], 16)
    lay, meas = _one_way_measurement([spike, flat], sigma, m)
    shrunk, done = mp.shrink_residuals(meas, m, 1.0, (1e9, 0.0))
    assert done == [(0,), (1,)]
    out, kept = mp.select_one_way_estimate(meas, shrunk, m, done, 1.0, np.random.default_rng(3))
    assert kept == [(1,)]
    assert np.array_equal(lay.residual(out.residuals, (0,)), lay.residual(meas.residuals, (0,)))   # raw back
    assert np.array_equal(lay.residual(out.residuals, (1,)), lay.residual(shrunk.residuals, (1,)))
    assert out.sigmas is shrunk.sigmas
    none, kept0 = mp.select_one_way_estimate(meas, shrunk, m, done, 1.0, np.random.default_rng(3), draws=0)
    assert kept0 == done and np.array_equal(none.residuals, shrunk.residuals)   # no draws: every factor kept
    again, kept2 = mp.select_one_way_estimate(meas, shrunk, m, done, 1.0, np.random.default_rng(3))
    assert kept2 == kept and np.array_equal(again.residuals, out.residuals)


def test_the_l1_choice_picks_the_smaller_l1_error_on_average():
    """Over noise draws, the table the choice releases has an L1 error no larger (within Monte Carlo noise) than the
    better of the two fixed rules, on a concentrated and on a flat attribute (the reason for the rule)."""
    from sosproj.sdp.simplex import project_simplex

    m, sigma = 1300, 60.0
    rng = np.random.default_rng(11)
    cases = {"concentrated": np.r_[0.6, 0.3, np.full(28, 0.1 / 28)] * m,
             "flat": rng.dirichlet(np.full(30, 50.0)) * m}
    for name, c in cases.items():
        err = {"raw": [], "js": [], "choice": []}
        for t in range(40):
            lay, meas = _one_way_measurement([c], sigma, m, seed=100 + t)
            shrunk, done = mp.shrink_residuals(meas, m, 1.0, (1e9, 0.0))
            out, _ = mp.select_one_way_estimate(meas, shrunk, m, done, 1.0, np.random.default_rng(t))
            for k, mm in (("raw", meas), ("js", shrunk), ("choice", out)):
                x = project_simplex(m / 30 + lay.residual(mm.residuals, (0,)), float(m))
                err[k].append(np.abs(x - c).sum() / m)
        best = min(np.mean(err["raw"]), np.mean(err["js"]))
        assert np.mean(err["choice"]) <= 1.02 * best, (name, {k: np.mean(v) for k, v in err.items()})


def test_the_l1_choice_in_the_release_is_post_processing(monkeypatch):
    """With ``ONE_WAY_L1_DRAWS`` on, the noise scales, the measured sets and every residual of order >= 2 are those
    with it off; a 1-way table differs only where the choice put the raw residual back (listed in
    ``info["raw_one_way_sets"]``), and the release is reproducible from ``rng``."""
    sizes = (3, 3, 2, 30, 9, 7, 12)
    m, eps = 1300, 0.3
    a = _data(sizes, m, seed=4)
    rec = a.records.copy()                                   # attribute 3: 60% / 25% of the records on two values
    rec[:, 3] = np.random.default_rng(9).choice(30, size=m, p=np.r_[0.6, 0.25, np.full(28, 0.15 / 28)])
    a = Dataset(rec, a.domain)
    monkeypatch.setattr(mp, "ONE_WAY_L1_DRAWS", 0)
    r0 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    monkeypatch.setattr(mp, "ONE_WAY_L1_DRAWS", 40)
    r1 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    r2 = mp.release(a, 3, epsilon=eps, delta=1e-6, rng=0)
    assert r1.info["noise_scales"] == r0.info["noise_scales"] and r1.spec == r0.spec
    assert r1.info["unmeasured_sets"] == r0.info["unmeasured_sets"]
    assert r0.info["raw_one_way_sets"] == []
    assert sorted(r1.info["shrunk_one_way_sets"] + r1.info["raw_one_way_sets"]) == r0.info["shrunk_one_way_sets"]
    assert all(np.array_equal(r1.table(w), r2.table(w)) for w in r1.workload)
    assert r1.info["raw_one_way_sets"] == [(3,)]             # the 30-value attribute of _data is concentrated
    assert any(not np.array_equal(r1.table(w), r0.table(w)) for w in r1.workload)


def test_a_one_value_attribute_in_the_workload_is_refused_with_its_name():
    """An attribute with a single value has no residual (q = 0): refused by name before any measurement (the domain is
    public); outside the workload it is harmless."""
    X = np.array([[0, 1, 2], [0, 0, 1], [0, 1, 0], [0, 1, 1]] * 50)
    with pytest.raises(InvalidParameterError, match=r"single value in the workload: \['x0'\]"):
        mp.release(X, 2, epsilon=1.0, delta=1e-6, domain=[1, 2, 3], rng=0)
    rel = mp.release(X, 2, epsilon=1.0, delta=1e-6, domain=[1, 2, 3], rng=0, workload=[(1, 2)])
    assert rel.table((1, 2)).sum() == pytest.approx(200.0)

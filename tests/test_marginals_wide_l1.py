"""The L1 correction of the categorical ``"auto"`` allocation (:func:`~sosproj.mechanisms.marginals_pipeline.
l1_correction`, :data:`~sosproj.mechanisms.marginals_pipeline.WIDE_L1_GAMMA`): the L1-optimal shape, public
quantities only, the exact sensitivity, and a no-op on binary data."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_marginals_pipeline import assert_sensitivity_is_brute_force

from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency


def _args(eps=1.0):
    return {"epsilon": eps, "delta": 1e-6, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}


def _data(sizes, m, seed):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, size=m)
    cols = [np.where(z == 0, rng.integers(0, s, size=m), (z + rng.integers(0, 2, size=m)) % s) for s in sizes]
    return Dataset(np.stack(cols, 1), Domain.from_sizes(sizes))


def _objective(lay, keep, sigma):
    """``(sum_T L_T, sum_A p_A / sigma_A^2)``: the workload's expected L1 noise (up to sqrt(2/pi)) and the
    add/remove privacy cost of the noise scales ``sigma`` on the measured sets ``keep``."""
    sizes = lay.sizes
    L1 = 0.0
    for T in lay.workload:
        var = 0.0
        for r in range(1, len(T) + 1):
            for B in itertools.combinations(T, r):
                i = lay.res_pos[B]
                if keep[i]:
                    var += math.prod((sizes[a] - 1) * sizes[a] for a in B) * sigma[i] ** 2
        L1 += math.sqrt(var)
    cost = sum(math.prod((sizes[a] - 1) / sizes[a] for a in A) / sigma[i] ** 2
               for i, A in enumerate(lay.residual_sets) if A and keep[i])
    return L1, cost


def _rp_sigma(lay, keep):
    p, v, _ = mp._set_stats(lay)
    sig = np.ones(len(p))
    nz = np.array([bool(A) for A in lay.residual_sets]) & keep
    sig[nz] = (p[nz] / v[nz]) ** 0.25
    return sig


def test_l1_correction_is_one_where_every_table_is_alike():
    """Equal sizes, all k-way tables, every set measured: every table has the same L_T, so the L1 optimum is
    ResidualPlanner's (ratio 1)."""
    lay = ResidualLayout((3, 3, 3, 3, 3), all_k_way(5, 3))
    r = mp.l1_correction(lay, np.ones(len(lay.residual_sets), dtype=bool))
    assert np.allclose(r, 1.0, rtol=1e-9)


@pytest.mark.parametrize("drop", [(), "wide"])
def test_l1_correction_lowers_the_l1_objective_at_the_same_privacy_cost(drop):
    """The corrected shape's workload L1 noise (``sum_T L_T``) is below ResidualPlanner's at the same privacy cost,
    and a small perturbation of it does not lower it further (a stationary point of the convex problem)."""
    sizes = (2, 3, 12, 4, 2)
    lay = ResidualLayout(sizes, all_k_way(5, 3))
    keep = np.ones(len(lay.residual_sets), dtype=bool)
    if drop == "wide":       # the skip pattern of a wide attribute: every set above {2} skipped
        keep = np.array([not (2 in A and len(A) > 1) for A in lay.residual_sets])
    rp = _rp_sigma(lay, keep)
    l1 = rp * mp.l1_correction(lay, keep)

    def at_cost_one(sig):
        L, c = _objective(lay, keep, sig)
        return L * math.sqrt(c)                     # scaling sigma by a: L * a, cost / a^2

    best = at_cost_one(l1)
    assert best < at_cost_one(rp) * (0.999 if drop else 1.0 + 1e-9)
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert at_cost_one(l1 * np.exp(0.05 * rng.normal(size=l1.size))) >= best * (1 - 1e-9)
    if drop:    # the wide 1-way set, which feeds six tables alone, gets relatively less noise
        r = mp.l1_correction(lay, keep)
        assert r[lay.res_pos[(2,)]] < min(r[lay.res_pos[(a,)]] for a in (0, 1, 3, 4))


def test_corrected_allocation_reads_no_records_and_is_a_no_op_on_binary_data(monkeypatch):
    """The default (gamma > 0): two datasets with the same public parameters get identical noise scales; binary data
    (no skip rule) get the same noise scales with the correction on and off."""
    assert mp.WIDE_L1_GAMMA > 0
    sizes = (2, 3, 30, 4, 2, 5)
    a, b = _data(sizes, 400, 1), _data(sizes, 400, 2)
    assert not np.array_equal(a.records, b.records)
    ra = mp.release(a, 3, epsilon=1.0, delta=1e-6, rng=0)
    rb = mp.release(b, 3, epsilon=1.0, delta=1e-6, rng=7)
    assert ra.info["noise_scales"] == rb.info["noise_scales"] and ra.spec == rb.spec
    assert ra.info["unmeasured_sets"] == rb.info["unmeasured_sets"] and ra.info["unmeasured_sets"]
    monkeypatch.setattr(mp, "WIDE_L1_GAMMA", 0.0)
    r0 = mp.release(a, 3, epsilon=1.0, delta=1e-6, rng=0)
    assert r0.info["noise_scales"] != ra.info["noise_scales"]     # the correction is binding here
    assert r0.info["unmeasured_sets"] == ra.info["unmeasured_sets"]
    # the shrinkage bands read the uncorrected scales: the same public choice of the sets shrunk
    assert r0.info["shrunk_sets"] == ra.info["shrunk_sets"]
    lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
    sig0, _, _ = mp.noise_scales(lay, "auto", _args(), 400)
    monkeypatch.setattr(mp, "WIDE_L1_GAMMA", 1.0)
    _, _, sens = mp.noise_scales(lay, "auto", _args(), 400)
    assert np.array_equal(sens["band_sigmas"][1:], sig0[1:])
    monkeypatch.setattr(mp, "WIDE_L1_GAMMA", 0.0)
    binary = _data((2,) * 6, 400, 3)
    off = mp.release(binary, 3, epsilon=1.0, delta=1e-6, rng=0).info["noise_scales"]
    monkeypatch.setattr(mp, "WIDE_L1_GAMMA", 1.5)
    on = mp.release(binary, 3, epsilon=1.0, delta=1e-6, rng=0).info["noise_scales"]
    assert on == off


@pytest.mark.parametrize("sizes, m, eps", [((2, 3, 5), 60, 0.5), ((3, 2, 4, 2), 80, 1.0)])
@pytest.mark.parametrize("gamma", [None, 3.0])
def test_corrected_allocation_sensitivity_equals_brute_force(sizes, m, eps, gamma, monkeypatch):
    """The noise scales of the corrected allocation (with skipped sets where the rule skips; the default exponent and
    a larger one): the computed exact replace-one / add-remove sensitivity equals the brute force over all records
    of the small domain."""
    if gamma is not None:
        monkeypatch.setattr(mp, "WIDE_L1_GAMMA", gamma)
    lay = ResidualLayout(sizes, all_k_way(len(sizes), len(sizes) - 1))
    sig, spec, sens = mp.noise_scales(lay, "auto", _args(eps), m)
    monkeypatch.setattr(mp, "WIDE_L1_GAMMA", 0.0)
    sig0, _, _ = mp.noise_scales(lay, "auto", _args(eps), m)
    assert (np.isfinite(sig) == np.isfinite(sig0)).all()
    assert not np.isfinite(sig).all()                # the rule skips some sets here
    s = sig / sens["sigma0"]
    s[lay.res_pos[()]] = 1.0
    assert np.isclose(mp.residual_sensitivity(lay, s, Adjacency.REPLACE_ONE)["sensitivity"], spec.sensitivity)
    assert_sensitivity_is_brute_force(lay, s)


def test_no_correction_where_the_skip_rule_measures_every_set(monkeypatch):
    """A categorical release whose public skip rule measures every residual set keeps the uncorrected noise scales
    (the gate of :data:`WIDE_L1_GAMMA`); with a skipped set the correction binds."""
    lay = ResidualLayout((3, 4, 2, 5), all_k_way(4, 3))
    on, _, sens = mp.noise_scales(lay, "auto", _args(10.0), 100_000)
    assert np.isfinite(on).all() and sens["band_sigmas"] is None
    monkeypatch.setattr(mp, "WIDE_L1_GAMMA", 0.0)
    off, _, _ = mp.noise_scales(lay, "auto", _args(10.0), 100_000)
    assert np.array_equal(on, off)

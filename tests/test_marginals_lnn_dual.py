"""The categorical ``"auto"`` LNN projection solved on its dual (``_lnn_dual``): against cvxpy/Clarabel at
1e-10 and the ADMM path, its optimality conditions, the noise-free (already feasible) case, the ADMM
fallbacks, and that the solver choice reads public quantities only."""

from __future__ import annotations

import numpy as np
import pytest

import sosproj as sp
from sosproj.data.domain import Dataset
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency
from sosproj.testing import noise_disabled
from tests.test_extrapolation import _cvxpy_projection, _data

pytest.importorskip("cvxpy")


def _measurement(ds, k=2, eps=0.5, seed=0):
    lay = ResidualLayout(ds.domain.sizes, all_k_way(ds.n, k))
    args = {"epsilon": eps, "delta": 1e-6, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    sig, spec, _ = mp.noise_scales(lay, "rp", args, ds.m)
    return mp.measure(ds, lay, sig, spec, "rp", np.random.default_rng(seed))


def test_lnn_dual_matches_clarabel_admm_and_kkt():
    ds = _data((3, 4, 2, 5), 80, seed=2)
    meas = _measurement(ds)
    lay = meas.layout
    assert lay.forward(meas.residuals).min() < -1.0                      # the projection has work to do
    out, info = mp._lnn_dual(meas, {"tol": 1e-7, "max_iter": 50000, "on_fail": "raise"})
    assert info["solver"] == "marginal-dual-fista" and info["converged"]
    ref = _cvxpy_projection(lay, meas.weights, meas.residuals)     # Clarabel at 1e-10
    scale = max(1.0, float(np.abs(lay.forward(ref)).max()))
    assert np.allclose(lay.forward(out), lay.forward(ref), atol=1e-3 * scale)
    # KKT: feasible (non-negative, consistent, total kept), complementarity, and the gap bounds the distance
    tabs = lay.forward(out)
    assert tabs.min() >= -1e-12 and out[lay.empty_pos] == meas.residuals[lay.empty_pos]
    assert abs(info["complementarity"]) <= 1e-7
    d = out - ref
    d[lay.empty_pos] = 0.0
    assert float(d @ (lay.expand(meas.weights) * d)) <= 2 * info["duality_gap"] + 1e-6
    # the ADMM (options with its penalty rho) solves the same problem
    adm, ia = mp._lnn_dual(meas, {"tol": 1e-7, "max_iter": 50000, "on_fail": "raise", "rho": 1.0})
    assert ia["solver"] == "marginal-admm" and ia["converged"]
    assert np.allclose(lay.forward(adm), lay.forward(out), atol=1e-3 * scale)


def test_auto_categorical_release_uses_the_dual_and_falls_back_to_admm_with_rho():
    ds = _data((3, 4, 2, 5), 300)
    kw = {"epsilon": 0.5, "delta": 1e-6, "rng": 1}
    rel = sp.release_marginals(ds, 3, **kw)
    ri = rel.info["reconstruction_info"]
    assert ri["solver"] == "marginal-dual-fista" and ri["converged"] and ri["theta"] <= rel.info["reconstruction_tol"]
    adm = sp.release_marginals(ds, 3, project_options={"rho": 1.0}, **kw)
    assert adm.info["reconstruction_info"]["solver"] == "marginal-admm"
    for w in rel.workload:                       # two solvers of one problem, each to tol 1e-3: close, not equal
        assert rel.table(w).min() >= -1e-9
        assert np.abs(rel.table(w) - adm.table(w)).sum() <= 0.02 * ds.m


def test_noise_free_feasible_input_converges_at_once():
    """An input that is already non-negative has objective ~0: the complementarity test is floored (without the
    floor the relative test divided round-off by ~1e-29 and the solver ran to its cap)."""
    ds = _data((3, 4, 2, 9, 5), 300, seed=1)
    with noise_disabled():
        rel = mp.release(ds, 3, epsilon=1.0, delta=1e-6, rng=0, _skip=2.0)
    ri = rel.info["reconstruction_info"]
    assert ri["solver"] == "marginal-dual-fista" and ri["converged"] and ri["iterations"] <= 50
    for w in [(0, 1), (1, 3), (2, 4)]:
        assert np.allclose(rel.table(w), ds.marginal(w), atol=0.05)


def test_solver_choice_reads_public_quantities_only():
    """Two neighbouring datasets (one record replaced) with the same public size and domain take the same path
    with the same step: the choice and the step depend on the noise scales (public) and the options only."""
    a = _data((3, 4, 2, 5), 200, seed=4)
    recs = np.array(a.records if hasattr(a, "records") else a.data).copy()
    recs[0] = [2, 3, 1, 4]
    b = Dataset(recs, a.domain)
    ia = mp._lnn_dual(_measurement(a), {"tol": 1e-3})[1]
    ib = mp._lnn_dual(_measurement(b), {"tol": 1e-3})[1]
    assert ia["solver"] == ib["solver"] == "marginal-dual-fista"
    assert ia["lipschitz"] == ib["lipschitz"]

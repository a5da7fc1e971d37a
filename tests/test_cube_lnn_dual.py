"""The LNN step after the binary cube step (``_cube_then_lnn``) solved on its dual (``_projector(...,
dual=True)`` -> :meth:`MarginalProjector.solve_dual`): against cvxpy/Clarabel at 1e-10 and the ADMM on small
binary cases, the released tables (non-negative, consistent, summing to m), and the exact shortcut for an
input that is already non-negative (it must never let a negative cell through)."""

from __future__ import annotations

import numpy as np
import pytest

import sosproj as sp
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.sdp.marginal_admm import MarginalProjector
from tests.test_marginals_wide_binary import _binary, _measurement

cp = pytest.importorskip("cvxpy")
from tests.test_extrapolation import _cvxpy_projection  # noqa: E402


def _captured_lnn_step(meas, opts, weights=None, degree=None):
    """Run ``_cube_then_lnn`` and return its output, info and the LNN step's input (the cube output)."""
    seen = []
    orig = mp._projector

    def spy(m, psd, options, w=None, **kw):
        seen.append((m, w, kw))
        return orig(m, psd, options, w, **kw)

    mp._projector = spy
    try:
        out, info = mp._cube_then_lnn(meas, opts, weights=weights, degree=degree)
    finally:
        mp._projector = orig
    assert len(seen) == 1 and seen[0][2] == {"dual": True}
    return out, info, seen[0][0]


@pytest.mark.parametrize("seed,eps,metric", [(0, 0.3, "measurement"), (1, 1.0, "measurement"), (2, 0.3, "table")])
def test_cube_lnn_step_matches_clarabel_and_the_admm(seed, eps, metric):
    ds = _binary(5, 120, seed=seed)
    meas = _measurement(ds, 3, eps, seed=seed)
    lay = meas.layout
    w = None if metric == "measurement" else mp.table_metric(lay)
    opts = {"tol": 1e-8, "max_iter": 50000, "on_fail": "raise"}
    # degree 2 constrains the moments of order <= 2 only: its output has negative 3-way cells
    out, info, cube_meas = _captured_lnn_step(meas, opts, weights=w, degree=2)
    w_sets = meas.weights if w is None else w
    r_in = cube_meas.residuals
    assert lay.forward(r_in).min() < -1e-6 * ds.m                   # the LNN step has work to do
    assert info["solver"] == "marginal-dual-fista" and info["converged"]
    ref = _cvxpy_projection(lay, w_sets, r_in)                        # Clarabel at 1e-10
    scale = max(1.0, float(np.abs(lay.forward(ref)).max()))
    assert np.allclose(lay.forward(out), lay.forward(ref), atol=1e-4 * scale)
    # optimality: feasible, total kept, complementarity, and the certificate bounds the distance to Clarabel
    assert lay.forward(out).min() >= -1e-12 and out[lay.empty_pos] == ds.m
    assert abs(info["complementarity"]) <= 1e-8
    d = out - ref
    d[lay.empty_pos] = 0.0
    assert float(d @ (lay.expand(w_sets) * d)) <= 2 * info["duality_gap"] + 1e-7
    # the ADMM solves the same problem
    adm, ia = MarginalProjector(lay, w_sets, tol=1e-8, max_iter=50000).solve(r_in, on_fail="raise")
    assert ia["converged"]
    assert np.allclose(lay.forward(adm), lay.forward(out), atol=1e-3 * scale)
    assert info["objective"] <= ia["objective"] * (1 + 1e-6) + 1e-9


def test_feasible_cube_output_takes_the_exact_shortcut():
    """At n = 5 the tight degree-4 cube step leaves every 3-way cell positive: the LNN step returns it as is."""
    ds = _binary(5, 120, seed=0)
    meas = _measurement(ds, 3, 0.3, seed=0)
    out, info, cube_meas = _captured_lnn_step(meas, {"tol": 1e-8, "max_iter": 50000, "on_fail": "raise"})
    assert meas.layout.forward(cube_meas.residuals).min() > 0
    assert info["feasible_input"] and info["iterations"] == 0 and info["duality_gap"] == 0.0 and info["converged"]
    assert np.array_equal(out, cube_meas.residuals)


def test_rho_option_keeps_the_admm():
    ds = _binary(5, 120, seed=0)
    meas = _measurement(ds, 3, 0.3, seed=0)
    _, info = mp._cube_then_lnn(meas, {"tol": 1e-4, "max_iter": 5000, "on_fail": "return", "rho": 1.0})
    assert info["solver"] == "marginal-admm"


@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_binary_auto_release_tables_nonnegative_consistent_sum_to_m(cube_path, eps):
    ds = _binary(6, 300, seed=4)
    rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-6, rng=3)
    ri = rel.info["reconstruction_info"]
    assert "cube" in ri and ri["converged"] and ri["solver"] == "marginal-dual-fista"
    assert ri["duality_gap"] is not None and ri["duality_gap"] >= 0.0
    for w in rel.workload:
        t = rel.table(w)
        assert t.min() >= 0.0 and np.isclose(t.sum(), ds.m, rtol=1e-12)
        for ax in range(len(w)):                  # consistent: every 2-way sub-marginal agrees across tables
            sub = tuple(a for i, a in enumerate(w) if i != ax)
            other = [v for v in rel.workload if set(sub) <= set(v) and v != w][0]
            t2 = rel.table(other)
            t2 = t2.sum(axis=tuple(i for i, a in enumerate(other) if a not in sub))
            assert np.allclose(t.sum(axis=ax), t2, atol=1e-8 * ds.m)


def test_feasible_input_is_returned_exactly():
    """A non-negative input is its own projection: returned unchanged, lam = 0, gap 0, zero iterations."""
    ds = _binary(5, 200, seed=5)
    meas = _measurement(ds, 3, 1.0, seed=0)
    lay = meas.layout
    r = lay.residuals_of_tables([ds.marginal(w).astype(float) + 0.5 for w in lay.workload])
    assert lay.forward(r).min() > 0
    out, info = MarginalProjector(lay, meas.weights, tol=1e-8).solve_dual(r, on_fail="raise")
    assert info["feasible_input"] and info["iterations"] == 0 and info["converged"]
    assert info["duality_gap"] == 0.0 and info["objective"] == 0.0
    assert np.array_equal(out, r)


def test_shortcut_never_lets_a_negative_cell_through():
    """One cell just below zero (the rest strictly positive) must not take the shortcut: the solver runs and
    the returned tables are non-negative and match Clarabel."""
    ds = _binary(4, 100, seed=6)
    meas = _measurement(ds, 3, 1.0, seed=0)
    lay = meas.layout
    tabs = [ds.marginal(w).astype(float) + 1.0 for w in lay.workload]
    r = lay.residuals_of_tables(tabs)
    # push one 3-way cell negative by a small amount through its top-order residual (keeps consistency)
    A = lay.workload[0]
    e = np.zeros(lay.res_size)
    lay.residual(e, A)[...] = (-1.0) ** np.indices((2,) * len(A)).sum(axis=0)
    b, t = lay.forward(e), lay.forward(r)
    ratio = np.where(b < 0, t / np.where(b < 0, -b, 1.0), np.inf)      # step along e that zeroes cell j
    k = int(np.argmin(ratio))
    r = r + (t[k] + 1e-6) / (-b[k]) * e                                  # cell k lands at -1e-6
    assert lay.forward(r).min() < 0 and lay.forward(r).min() > -1e-3
    proj = MarginalProjector(lay, meas.weights, tol=1e-9, max_iter=50000)
    out, info = proj.solve_dual(r, on_fail="raise")
    assert not info["feasible_input"] and info["iterations"] > 0
    assert lay.forward(out).min() >= 0.0
    ref = _cvxpy_projection(lay, meas.weights, r)
    assert np.allclose(lay.forward(out), lay.forward(ref), atol=1e-3)
    ref_obj = proj.certificate(r, ref, np.zeros(lay.tab_size))["objective"]
    assert info["objective"] <= ref_obj + 1e-9                          # at least as good as Clarabel's point

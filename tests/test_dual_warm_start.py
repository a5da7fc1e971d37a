"""``MarginalProjector.solve_dual``'s ``warm_start`` (a first multiplier): the answer from a warm start against
cvxpy/Clarabel at 1e-10 and by its optimality conditions, ``converged`` semantics unchanged, and a wrong warm start
refused (shape, non-finite) or repaired (negative entries projected onto ``lam >= 0``), never trusted."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.errors import InvalidParameterError
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.sdp.marginal_admm import MarginalProjector
from tests.test_extrapolation import _negative_residuals

pytest.importorskip("cvxpy")


def _clip_start(lay, r):
    """The closed-form guess max(-B r, 0): the multiplier of the per-cell clip of the input's tables."""
    return np.maximum(-lay.forward(r), 0.0)


@pytest.mark.parametrize("metric", ["table", "weighted"])
@pytest.mark.parametrize("start", ["clip", "scaled-clip", "random"])
def test_warm_started_dual_matches_clarabel_and_certifies(metric, start):
    from tests.test_extrapolation import _cvxpy_projection

    lay, r = _negative_residuals()
    w = mp.table_metric(lay)
    if metric == "weighted":
        w = w * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    ref = _cvxpy_projection(lay, w, r)
    lam0 = {"clip": _clip_start(lay, r), "scaled-clip": 5.0 * _clip_start(lay, r),
            "random": np.random.default_rng(3).exponential(2.0, lay.tab_size)}[start]
    proj = MarginalProjector(lay, w, tol=1e-6, max_iter=20000)
    out, info = proj.solve_dual(r, on_fail="raise", warm_start=lam0)
    assert info["converged"] and info["warm_start"] and info["theta"] <= 1e-6
    assert abs(info["complementarity"]) <= 1e-6
    tabs = lay.forward(out)
    assert tabs.min() >= -1e-12 and out[lay.empty_pos] == r[lay.empty_pos]
    d = out - ref
    d[lay.empty_pos] = 0.0
    assert float(d @ (lay.expand(w) * d)) <= 2 * info["duality_gap"] + 1e-6
    scale = max(1.0, float(np.abs(lay.forward(ref)).max()))
    assert np.allclose(tabs, lay.forward(ref), atol=1e-3 * scale)


def test_warm_start_does_not_change_what_converged_means():
    """At an iteration cap the warm-started dual still reports converged False (and warns / raises as asked)."""
    lay, r = _negative_residuals()
    proj = MarginalProjector(lay, mp.table_metric(lay), tol=1e-9, max_iter=3)
    out, info = proj.solve_dual(r, on_fail="return", warm_start=_clip_start(lay, r))
    assert not info["converged"] and info["iterations"] == 3
    assert lay.forward(out).min() >= -1e-12                    # still mixed to non-negative tables
    with pytest.raises(Exception, match="did not reach"):
        proj.solve_dual(r, on_fail="raise", warm_start=_clip_start(lay, r))


def test_a_wrong_warm_start_is_refused_or_repaired():
    lay, r = _negative_residuals()
    proj = MarginalProjector(lay, mp.table_metric(lay), tol=1e-6, max_iter=20000)
    n = lay.tab_size
    for bad in (np.zeros(n - 1), np.zeros(n + 1), np.zeros((n, 1)), np.zeros(lay.res_size)):
        if bad.shape == (n,):
            continue
        with pytest.raises(InvalidParameterError, match="warm_start"):
            proj.solve_dual(r, warm_start=bad)
    for v in (np.nan, np.inf, -np.inf):
        bad = _clip_start(lay, r)
        bad[7] = v
        with pytest.raises(InvalidParameterError, match="finite"):
            proj.solve_dual(r, warm_start=bad)
    # negative entries: projected onto lam >= 0 (the same run as from the clipped start, bit for bit), and the
    # answer is still the certified projection
    lam0 = np.random.default_rng(1).normal(0.0, 50.0, n)
    assert lam0.min() < -10
    out, info = proj.solve_dual(r, on_fail="raise", warm_start=lam0)
    out2, info2 = proj.solve_dual(r, on_fail="raise", warm_start=np.maximum(lam0, 0.0))
    assert np.array_equal(out, out2) and info["iterations"] == info2["iterations"]
    assert info["converged"] and info["warm_start_repaired"] == int(np.sum(lam0 < 0))
    assert info2["warm_start_repaired"] == 0
    ref, iref = proj.solve_dual(r, on_fail="raise")
    assert not iref["warm_start"]
    scale = max(1.0, float(np.abs(lay.forward(ref)).max()))
    assert np.allclose(lay.forward(out), lay.forward(ref), atol=1e-3 * scale)
    # the caller's array is not modified
    assert lam0.min() < -10


def test_zero_warm_start_is_the_cold_start_bit_for_bit():
    lay, r = _negative_residuals()
    proj = MarginalProjector(lay, mp.table_metric(lay), tol=1e-6, max_iter=20000)
    a, ia = proj.solve_dual(r, on_fail="raise")
    b, ib = proj.solve_dual(r, on_fail="raise", warm_start=np.zeros(lay.tab_size))
    assert np.array_equal(a, b) and ia["iterations"] == ib["iterations"]


def test_certificate_from_the_callers_lagrangian_minimizer_matches_the_recomputed_one():
    """``certificate(lagrangian=(c(lam), B c(lam)))`` (what solve_dual passes after its exact test) gives the numbers
    of the recomputation, up to the rounding of ``g / w`` against ``g * (1 / w)``."""
    lay, r = _negative_residuals()
    w = mp.table_metric(lay) * np.array([1.0 + 2.0 * len(A) for A in lay.residual_sets])
    proj = MarginalProjector(lay, w, tol=1e-6, max_iter=20000)
    out, _ = proj.solve_dual(r, on_fail="raise")
    lam = np.random.default_rng(4).exponential(1.0, lay.tab_size)
    we = lay.expand(w)
    we[lay.empty_pos] = 1.0                                        # the empty set's weight is ignored
    inv_w = 1.0 / we
    inv_w[lay.empty_pos] = 0.0
    c = lay.adjoint(lam) * inv_w + r
    c[lay.empty_pos] = r[lay.empty_pos]
    a = proj.certificate(r, out, lam)
    b = proj.certificate(r, out, lam, lagrangian=(c, lay.forward(c)))
    for key in ("objective", "dual_objective", "duality_gap"):
        assert np.isclose(a[key], b[key], rtol=1e-12, atol=1e-9), key
    assert a["objective"] == b["objective"]
    # and solve_dual's reported gap is that of its answer (recomputed here without the shortcut)
    lay2, r2 = _negative_residuals(seed=1)
    p2 = MarginalProjector(lay2, mp.table_metric(lay2), tol=1e-4, max_iter=20000)
    out2, info2 = p2.solve_dual(r2, on_fail="raise")
    mixed, theta = p2.make_nonnegative(out2)
    assert theta == 0.0 and np.array_equal(mixed, out2)            # the answer is already mixed, non-negative
    assert info2["objective"] == p2.certificate(r2, out2, np.zeros(lay2.tab_size))["objective"]

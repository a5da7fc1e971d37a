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

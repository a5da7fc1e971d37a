"""The one-vector ADMM loop of :class:`MarginalProjector` reproduces the previous ``(z, u)`` loop.

The reference (``tests/marginal_admm_reference.py``) is the loop as of commit 243c883; the shipped
loop keeps ``s = z + u`` (and ``S = X + U``) in reused buffers. Same arithmetic up to rounding, so
the same iterates, stopping iteration, penalty and released residuals; the optimum itself is checked
against cvxpy in ``tests/test_marginals_pipeline.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector
from tests.marginal_admm_reference import reference_solve_state, reference_theta


def _problem(sizes, k, m, noise, seed):
    """Noisy residuals of random skewed data (sparse tables: many active cells) and random weights."""
    rng = np.random.default_rng(seed)
    lay = ResidualLayout(sizes, all_k_way(len(sizes), k))
    recs = np.stack([np.minimum(rng.geometric(0.5, size=m) - 1, s - 1) for s in sizes], 1)
    tabs = []
    for w in lay.workload:
        t = np.zeros(tuple(sizes[a] for a in w))
        np.add.at(t, tuple(recs[:, a] for a in w), 1.0)
        tabs.append(t)
    r = lay.residuals_of_tables(tabs)
    e = lay.empty_pos
    noisy = r + lay.center(rng.normal(0.0, noise, size=lay.res_size))
    noisy[e] = m
    w = rng.uniform(0.5, 2.0, size=len(lay.residual_sets)) / noise**2
    w[lay.res_pos[()]] = 0.0
    return lay, w, noisy


def _close(a, b, rel=1e-8):
    return np.max(np.abs(a - b)) <= rel * max(np.max(np.abs(b)), 1.0)


@pytest.mark.parametrize("sizes,k,psd,max_iter,noise", [
    ((2, 3, 4, 5), 3, False, 3000, 4.0),      # converges
    ((3, 4, 2, 6, 3), 2, False, 37, 4.0),     # capped, stopping at a non-multiple of 5
    ((2, 3, 3, 4), 2, True, 3000, 30.0),      # with the one-hot PSD split
])
def test_fast_loop_matches_the_reference_loop(sizes, k, psd, max_iter, noise):
    lay, w, noisy = _problem(sizes, k, m=400, noise=noise, seed=len(sizes))
    rho0 = MarginalProjector(lay, w).rho0 / 100.0         # far below the balance: the penalty adapts
    proj = MarginalProjector(lay, w, psd=psd, tol=1e-6, max_iter=max_iter, rho=rho0)
    r, info, state = proj.solve_state(noisy, on_fail="return")
    r_ref, info_ref, state_ref = reference_solve_state(proj, noisy)
    assert info["iterations"] == info_ref["iterations"]
    assert info["converged"] == info_ref["converged"]
    assert info["rho"] == pytest.approx(info_ref["rho"], rel=1e-9)
    assert info["rho"] != rho0                                # the adaptive penalty was exercised
    assert _close(state.r, r_ref) and _close(state.z, state_ref.z) and _close(state.u, state_ref.u)
    assert _close(r, proj.make_nonnegative(r_ref)[0])
    assert lay.forward(r).min() >= 0


def test_fast_loop_warm_start_matches_the_reference_loop():
    lay, w, noisy = _problem((2, 3, 3, 4), 2, m=300, noise=3.0, seed=7)
    _, _, start = MarginalProjector(lay, w, tol=1e-5, max_iter=3000).solve_state(noisy, on_fail="return")
    proj = MarginalProjector(lay, w, psd=True, tol=1e-5, max_iter=2000)
    _, info, state = proj.solve_state(noisy, on_fail="return", warm_start=start)
    r_ref, info_ref, _ = reference_solve_state(proj, noisy, warm_start=start)
    assert info["iterations"] == info_ref["iterations"] and info["warm_start"]
    assert _close(state.r, r_ref)


def test_theta_by_the_smallest_ratio_equals_the_cellwise_maximum():
    lay, w, noisy = _problem((2, 3, 4), 3, m=50, noise=5.0, seed=1)
    proj = MarginalProjector(lay, w)
    t = lay.forward(noisy)
    assert t.min() < 0
    got = proj._theta(t, 50.0)
    assert got == pytest.approx(reference_theta(proj, t, 50.0), rel=1e-12)
    assert proj._theta(np.abs(t), 50.0) == 0.0
    mixed, theta = proj.make_nonnegative(noisy)
    assert theta >= got and lay.forward(mixed).min() >= 0


def test_forward_into_a_buffer_equals_a_new_vector():
    lay, _w, noisy = _problem((3, 2, 4), 2, m=60, noise=2.0, seed=2)
    buf = np.full(lay.tab_size, np.nan)
    out = lay.forward(noisy, out=buf)
    assert out is buf and np.array_equal(buf, lay.forward(noisy))

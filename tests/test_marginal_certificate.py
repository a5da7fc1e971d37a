"""Duality-gap certificate of the LNN projection (:meth:`MarginalProjector.certificate`).

For any multipliers ``lam >= 0`` the dual value is a lower bound on the optimum and the objective at a
feasible point an upper bound, so the reported gap bounds ``1/2 ||r - c*||_W^2`` at every iterate, converged
or capped. Checked against cvxpy/Clarabel's optimum on small binary and categorical domains.
"""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector
from tests.test_marginal_admm_fast import _problem


def _clarabel_optimum(lay, w_sets, noisy):
    """The LNN projection by cvxpy/Clarabel (in fractions of the total: counts make it stop "inaccurate")."""
    cp = pytest.importorskip("cvxpy")
    n = lay.res_size
    e = lay.empty_pos
    m = float(noisy[e])
    Bm = np.array([lay.forward(np.eye(n)[i]) for i in range(n)]).T
    Cm = np.eye(n) - np.array([lay.center(np.eye(n)[i].copy()) for i in range(n)]).T
    w = lay.expand(w_sets)
    w[e] = 0.0
    u = cp.Variable(n)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum(cp.multiply(w, cp.square(u - noisy / m)))),
                      [Bm @ u >= 0, u[e] == 1.0, Cm @ u == 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert prob.status == "optimal"
    c = m * u.value
    d = c - noisy
    d[e] = 0.0
    return c, 0.5 * float(d @ (w * d))


@pytest.mark.parametrize("sizes,k,noise,seed", [
    ((2, 2, 2, 2), 3, 3.0, 0),       # binary
    ((2, 3, 4), 2, 4.0, 1),          # categorical
    ((3, 2, 4, 2), 3, 2.0, 2),       # categorical, every 3-way table
])
def test_certificate_brackets_the_clarabel_optimum(sizes, k, noise, seed):
    lay, w, noisy = _problem(sizes, k, 40, noise, seed)
    ref, p_star = _clarabel_optimum(lay, w, noisy)
    assert np.max(np.abs(lay.forward(noisy) - lay.forward(ref))) > 0.1   # constraints were active
    wv = lay.expand(w)
    for max_iter, tol in ((5, 1e-3), (20000, 1e-9)):               # capped, then converged
        got, info = MarginalProjector(lay, w, tol=tol, max_iter=max_iter).solve(noisy, on_fail="return")
        assert info["converged"] is (max_iter > 5)
        assert lay.forward(got).min() >= 0
        slack = 1e-7 * max(p_star, 1.0)
        assert info["dual_objective"] <= p_star + slack
        assert info["objective"] >= p_star - slack
        assert info["duality_gap"] == pytest.approx(info["objective"] - info["dual_objective"], abs=slack)
        d = got - ref
        d[lay.empty_pos] = 0.0
        assert 0.5 * float(d @ (wv * d)) <= info["duality_gap"] + slack     # distance bound
    # converged to tol 1e-9: the answer is Clarabel's, and the certificate says so
    assert info["duality_gap"] <= 1e-6 * max(p_star, 1.0)
    assert np.max(np.abs(lay.forward(got) - lay.forward(ref))) <= 1e-4 * np.abs(lay.forward(ref)).max()


def test_certificate_is_zero_when_noise_is_off():
    """Exact tables are feasible and optimal (objective 0) with zero multipliers."""
    lay = ResidualLayout((2, 3, 3), all_k_way(3, 2))
    rng = np.random.default_rng(4)
    tabs = []
    full = rng.integers(0, 5, size=(2, 3, 3)).astype(float)
    for wset in lay.workload:
        tabs.append(full.sum(axis=tuple(a for a in range(3) if a not in wset)))
    r = lay.residuals_of_tables(tabs)
    got, info = MarginalProjector(lay, np.ones(len(lay.residual_sets))).solve(r, on_fail="raise")
    assert info["converged"] and info["duality_gap"] == pytest.approx(0.0, abs=1e-9)
    assert np.allclose(lay.forward(got), lay.forward(r))


def test_certificate_absent_with_psd_or_zero_weights():
    lay, w, noisy = _problem((2, 3, 3), 2, 30, 3.0, 5)
    _, info = MarginalProjector(lay, w, psd=True, max_iter=50).solve(noisy, on_fail="return")
    assert info["duality_gap"] is None and info["objective"] is None
    w0 = w.copy()
    w0[lay.res_pos[(0,)]] = 0.0                                     # a free residual: g = -inf
    _, info = MarginalProjector(lay, w0, max_iter=50).solve(noisy, on_fail="return")
    assert info["duality_gap"] is None


def test_release_reports_the_certificate(measure_every_set):
    """The default categorical release (LNN projection) carries the gap; it bounds the objective's excess.

    Every residual set is measured (fixture): at m = 200 the skip rule would leave nothing to project."""
    import sosproj as sp
    from sosproj.data.domain import Dataset, Domain

    rng = np.random.default_rng(6)
    sizes = (3, 4, 2, 3)
    recs = np.stack([np.minimum(rng.geometric(0.6, size=200) - 1, s - 1) for s in sizes], 1)
    ds = Dataset(recs, Domain.from_sizes(sizes))
    rel = sp.release_marginals(ds, 2, epsilon=0.5, delta=1e-6, reconstruction="lnn", rng=0)
    ri = rel.info["reconstruction_info"]
    assert ri["converged"]
    assert 0.0 <= ri["duality_gap"] <= 5e-3 * ri["objective"]        # 6e-4 here, after 30 iterations
    assert ri["dual_objective"] <= ri["objective"]


def test_admm_converged_flag_requires_the_gap():
    """The ADMM's residual test can pass far from the optimum (nearly feasible input, small noise): there
    ``converged`` is False (``residuals_converged`` True, ``relative_gap`` above ``ADMM_GAP_RTOL``), and the
    objective's excess over Clarabel's optimum is real; the dual on the same input converges to it."""
    import warnings

    from sosproj.sdp.marginal_admm import ADMM_GAP_RTOL

    lay, w, noisy = _problem((3, 2, 4, 2), 3, 200, 0.3, 1)
    _, p_star = _clarabel_optimum(lay, w, noisy)
    proj = MarginalProjector(lay, w)
    got, info = proj.solve(noisy, on_fail="return")
    assert info["residuals_converged"] and not info["converged"]          # the old flag said converged
    assert info["relative_gap"] == pytest.approx(info["duality_gap"] / max(info["objective"], 1.0))
    assert info["relative_gap"] > ADMM_GAP_RTOL
    assert info["objective"] - p_star > 0.01 * max(p_star, 1.0)          # not just a loose bound: 3% above p*
    assert info["objective"] - p_star <= info["duality_gap"] + 1e-9      # and the gap brackets it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proj.solve(noisy, on_fail="warn")
    assert any("relative duality gap" in str(c.message) for c in caught)
    _, dinfo = proj.solve_dual(noisy, on_fail="raise")
    assert dinfo["converged"] and dinfo["objective"] - p_star <= 1e-3 * max(p_star, 1.0)
    # a tight tol lets the residual test run on to the optimum: the certificate then passes too
    _, tight = MarginalProjector(lay, w, tol=1e-8, max_iter=20000).solve(noisy, on_fail="raise")
    assert tight["converged"] and tight["relative_gap"] <= ADMM_GAP_RTOL

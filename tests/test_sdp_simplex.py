"""``sosproj.sdp.simplex.project_simplex``: the projection onto {x >= 0, sum x = t}, checked by its optimality
conditions and against cvxpy on small cases."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.sdp.simplex import project_simplex


@pytest.mark.parametrize("seed", range(6))
def test_projection_satisfies_its_kkt_conditions(seed):
    """x >= 0, sum x = t, and v - x = tau on the support, v - x <= tau off it (x = (v - tau)_+)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=int(rng.integers(1, 60))) * 10
    t = float(rng.uniform(0.5, 50))
    x = project_simplex(v, t)
    assert np.all(x >= 0) and abs(x.sum() - t) <= 1e-9 * max(t, 1)
    on = x > 0
    tau = float(np.mean((v - x)[on]))
    np.testing.assert_allclose((v - x)[on], tau, atol=1e-9)
    assert np.all(v[~on] <= tau + 1e-9)


def test_projection_equals_cvxpy():
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(7)
    for _ in range(3):
        v = rng.normal(size=12) * 3
        x = cp.Variable(12)
        cp.Problem(cp.Minimize(cp.sum_squares(x - v)), [x >= 0, cp.sum(x) == 4.0]).solve()
        np.testing.assert_allclose(project_simplex(v, 4.0), x.value, atol=1e-6)

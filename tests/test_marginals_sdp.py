"""SDP-backed marginal methods: exactness without noise, projection optimality, consistency, limits."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.data.moment_tensor import moment_tensor, subset_counts
from sosproj.data.synthetic import planted_binary, sparse_binary
from sosproj.errors import InvalidParameterError, ResourceLimitError
from sosproj.mechanisms.marginals import release_marginals
from sosproj.mechanisms.sizes import default_degree
from sosproj.privacy.noise import gaussian_noise
from sosproj.rng import as_generator
from sosproj.testing import noise_disabled


@pytest.mark.parametrize("method,k,kw", [
    ("cube", 2, {}), ("cube", 3, {}), ("sos", 2, {}), ("sos", 3, {}),
    ("cube", 3, {"sparsity": 3}), ("sos-sparse", 2, {"sparsity": 2, "degree": 2}),
])
def test_noise_off_sdp_methods_return_exact_counts(method, k, kw):
    n = 4 if method == "sos-sparse" else 5
    D = sparse_binary(40, n, kw["sparsity"], rng=1) if "sparsity" in kw else planted_binary(40, n, rng=1)
    with noise_disabled():
        rel = release_marginals(D, k, epsilon=1.0, delta=1e-6, method=method, solver="clarabel",
                                project_options={"tol": 1e-9}, rng=0, **kw)
    _, c = subset_counts(D, k)
    np.testing.assert_allclose(rel.m * rel.moments, c, atol=1e-4 * rel.m)
    assert rel.info["projection"]["converged"]
    assert rel.info["degree"] == kw.get("degree", default_degree(method, k, n))


def _noisy_input(D, k, rel, seed, sparsity=None):
    T = moment_tensor(D, k, sparsity=sparsity, form="full")
    return T, T + gaussian_noise(T.shape, rel.sigma, as_generator(seed))


@pytest.mark.parametrize("solver", ["scs", "clarabel"])
def test_cube_projection_optimality_conditions(solver):
    """X = Pi_S(Y) with T in S: <Y - X, T - X> <= 0 and ||X - T||^2 <= <X - T, Y - T> (firm non-exp.)."""
    n, k, seed = 6, 3, 7
    D = planted_binary(300, n, rng=2)
    rel = release_marginals(D, k, epsilon=1.0, delta=1e-6, method="cube", solver=solver, rng=seed,
                            project_options={"tol": 1e-8})
    T, Y = _noisy_input(D, k, rel, seed)
    X = rel.tensor() / (rel.m * n ** (k / 2))
    scale = float(np.sum((Y - T) ** 2))
    tol = 1e-4 * scale
    assert np.sum((Y - X) * (T - X)) <= tol
    assert np.sum((X - T) ** 2) <= np.sum((X - T) * (Y - T)) + tol
    # other feasible points: moment tensors of other datasets
    for other in range(3):
        Z = moment_tensor(planted_binary(50, n, rng=10 + other), k, form="full")
        assert np.sum((Y - X) * (Z - X)) <= tol
    assert np.sum((X - T) ** 2) < np.sum((Y - T) ** 2)


def test_cube_scs_matches_clarabel():
    D = planted_binary(200, 5, rng=4)
    a = release_marginals(D, 3, epsilon=1.0, delta=1e-6, method="cube", solver="scs", rng=3,
                          project_options={"tol": 1e-8})
    b = release_marginals(D, 3, epsilon=1.0, delta=1e-6, method="cube", solver="clarabel", rng=3,
                          project_options={"tol": 1e-9})
    np.testing.assert_allclose(a.moments, b.moments, atol=1e-4)


def test_cube_tables_consistent_and_two_way_cells_nonnegative():
    D = planted_binary(150, 6, rng=3)
    rel = release_marginals(D, 3, epsilon=0.5, delta=1e-6, method="cube", solver="clarabel", rng=1)
    for attrs in [(0, 1, 2), (3, 5, 1)]:
        t = rel.table(attrs)
        assert np.isclose(t.sum(), rel.m)
        np.testing.assert_allclose(t.sum(axis=2), rel.table(attrs[:2]), atol=1e-9)
        np.testing.assert_allclose(t.sum(axis=0), rel.table(attrs[1:]), atol=1e-9)
        np.testing.assert_allclose(t.sum(axis=(0, 1)), rel.table(attrs[2:]), atol=1e-9)
    # degree-4 pseudo-distributions on the cube give non-negative 1- and 2-way cells (squares)
    for i in range(6):
        for j in range(i + 1, 6):
            assert rel.table([i, j]).min() >= -1e-3 * rel.m
    low = np.array([len(S) <= 2 for S in rel.subsets])
    assert rel.moments[low].min() >= -1e-6 and rel.moments.max() <= 1 + 1e-6


def test_cube_sparsity_constraint_changes_set():
    D = sparse_binary(100, 6, 2, rng=5)
    a = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="cube", sparsity=2, solver="clarabel", rng=2)
    # pseudo-moments satisfy E[sum_i x_i] <= t (in count units: sum of 1-way counts <= t m)
    assert a.counts(1)[1].sum() <= 2 * a.m * (1 + 1e-6)
    assert a.info["normalization"].startswith("t-sparse")


def test_sos_sparse_refused_with_estimate_when_too_large():
    D = sparse_binary(20, 30, 3, rng=0)
    with pytest.raises(ResourceLimitError) as err:
        release_marginals(D, 3, epsilon=1.0, delta=1e-6, method="sos-sparse", sparsity=3, rng=0)
    assert err.value.estimate_bytes is not None and err.value.estimate_bytes > 0


def test_degree_validation():
    D = planted_binary(20, 4, rng=0)
    with pytest.raises(InvalidParameterError):
        release_marginals(D, 3, epsilon=1.0, delta=1e-6, method="cube", degree=2, rng=0)

"""release_tables: measured tables + Boolean-cube SoS projection."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.linalg as sla

from sosproj.data.contingency import (
    SubsetIndex,
    TableLayout,
    contingency_tables,
    fourier_form,
    fourier_from_subset,
    subset_from_fourier,
)
from sosproj.errors import InvalidInputError, InvalidParameterError, ProjectionError
from sosproj.mechanisms import marginals as marg
from sosproj.mechanisms.marginal_tables import release_tables, tables_least_squares_reference
from sosproj.mechanisms.sizes import default_degree
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.sdp.cube_tables_admm import CubeTablesProjector
from sosproj.testing import noise_disabled


def _data(m, n, seed=0):
    g = np.random.default_rng(seed)
    p = g.beta(0.5, 0.5, size=(3, n))
    return (g.random((m, n)) < p[g.integers(0, 3, size=m)]).astype(np.uint8)


def _exact_count(D, S):
    return float(np.sum(np.all(D[:, list(S)] == 1, axis=1)))


@pytest.mark.parametrize("n, k, workload", [(6, 3, None), (5, 2, None), (6, 3, [(0, 1, 2), (2, 3), (4, 5)])])
def test_noise_off_gives_exact_counts_and_consistent_tables(n, k, workload):
    D = _data(60, n, seed=n + k)
    with noise_disabled():
        rel = release_tables(D, k, epsilon=1.0, delta=1e-6, workload=workload, rng=0, tol=1e-6,
                             max_iter=20000, on_fail="raise")
    assert rel.method == "tables" and rel.m == 60 and rel.k == k
    assert rel.info["degree"] == default_degree("tables", k, n)
    lay = TableLayout.all_k_way(n, k) if workload is None else TableLayout.from_workload(workload, n)
    covered = {U for T in lay.sets for r in range(len(T) + 1) for U in itertools.combinations(T, r)}
    for S in covered:   # exact up to the solver tolerance (1e-6 relative): rounding recovers the counts
        assert rel.query(S) == pytest.approx(_exact_count(D, S), abs=1e-2)
        assert round(rel.query(S)) == _exact_count(D, S)
    for T in lay.sets:
        tab = rel.table(T)
        assert tab.sum() == pytest.approx(60, abs=1e-8)              # consistent by construction
        for ax in range(len(T)):                                      # lower order = sums
            lower = rel.table(T[:ax] + T[ax + 1:])
            np.testing.assert_allclose(tab.sum(axis=ax), lower, atol=1e-8)
        np.testing.assert_allclose(tab, contingency_tables(D, TableLayout.from_workload([T], n))[0], atol=2e-2)
    assert rel.info["uncovered_subsets"] == (0 if workload is None else
                                             sum(math.comb(n, j) for j in range(k + 1)) - len(covered))


@pytest.mark.parametrize("n, k, noise_scale", [(5, 3, 0.1), (6, 2, 0.2), (6, 3, 0.05)])
def test_projection_matches_cvxpy_reference(n, k, noise_scale):
    D = _data(40, n, seed=3)
    lay = TableLayout.all_k_way(n, k)
    rng = np.random.default_rng(n * 10 + k)
    c = contingency_tables(D, lay, flat=True) / 40 + rng.normal(scale=noise_scale, size=lay.n_cells)
    idx = SubsetIndex(n, k)
    ff = fourier_form(c, lay, idx)
    deg = default_degree("tables", k)                      # the smallest degree: 2 ceil(k/2)
    proj = CubeTablesProjector(n, deg, ff.a, tol=1e-9, max_iter=30000)
    f, info = proj.solve(ff.g, on_fail="raise")
    y = subset_from_fourier(proj.index, k) @ f
    y_ref = tables_least_squares_reference(c, lay, deg, eps=1e-9)
    np.testing.assert_allclose(y, y_ref, atol=1e-5)
    # feasibility of the returned point: y_() = 1 and the moment matrix is PSD
    assert f[0] == 1.0
    assert sla.eigvalsh(proj.moment_matrix(f))[0] >= -1e-10
    # optimality: the objective is not worse than the reference's beyond solver accuracy
    assert info["objective_fourier"] + ff.const <= ff.objective(fourier_from_subset(idx) @ y_ref) + 1e-6


def test_weighted_projection_matches_reference():
    n, k = 5, 2
    D = _data(30, n, seed=4)
    lay = TableLayout.all_k_way(n, k)
    rng = np.random.default_rng(1)
    w = rng.random(lay.n_tables) + 0.2
    c = contingency_tables(D, lay, flat=True) / 30 + rng.normal(scale=0.15, size=lay.n_cells)
    idx = SubsetIndex(n, k)
    ff = fourier_form(c, lay, idx, w)
    proj = CubeTablesProjector(n, 2, ff.a, tol=1e-10, max_iter=30000)
    f, _ = proj.solve(ff.g, on_fail="raise")
    y = subset_from_fourier(proj.index, k) @ f
    np.testing.assert_allclose(y, tables_least_squares_reference(c, lay, 2, weights=w, eps=1e-9), atol=1e-5)


def test_projector_interior_point_is_fixed():
    # targets that are moments of a distribution (inside the relaxation) project onto themselves
    n = 6
    D = _data(200, n, seed=5)
    lay = TableLayout.all_k_way(n, 3)
    idx = SubsetIndex(n, 3)
    ff = fourier_form(contingency_tables(D, lay, flat=True) / 200, lay, idx)
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-9, max_iter=20000)
    f, info = proj.solve(ff.g, on_fail="raise")
    np.testing.assert_allclose(f[:len(idx)], ff.g, atol=1e-6)
    assert info["objective_fourier"] < 1e-10


def test_sigma_and_sensitivity_and_reproducibility():
    D = _data(300, 6, seed=6)
    r1 = release_tables(D, 3, epsilon=0.7, delta=1e-6, rng=11)
    r2 = release_tables(D, 3, epsilon=0.7, delta=1e-6, rng=11)
    assert r1.sensitivity == pytest.approx(math.sqrt(2 * 20))
    assert r1.sigma == pytest.approx(gaussian_sigma(0.7, 1e-6, math.sqrt(40)))
    np.testing.assert_array_equal(r1.moments, r2.moments)
    assert r1.info["adjacency"] == "replace-one" and r1.info["noise"] == "gaussian"
    assert r1.info["measured_cells"].shape == (160,)
    # released tables are consistent even with noise
    for T in itertools.combinations(range(6), 3):
        tab = r1.table(T)
        assert tab.sum() == pytest.approx(300)
        np.testing.assert_allclose(tab.sum(axis=0), r1.table(T[1:]), atol=1e-8)
    # the noise is real: with another seed the answers move
    r3 = release_tables(D, 3, epsilon=0.7, delta=1e-6, rng=12)
    assert not np.allclose(r1.moments, r3.moments)


def test_projection_reduces_error_against_raw_tables():
    n, m = 8, 500
    D = _data(m, n, seed=7)
    lay = TableLayout.all_k_way(n, 3)
    true = contingency_tables(D, lay, flat=True)
    ones = lay.offsets[:-1] + 7
    err_rel, err_raw = [], []
    for seed in range(3):
        rel = release_tables(D, 3, epsilon=1.0, delta=1e-6, rng=seed)
        est = np.array([rel.query(T) for T in lay.sets])
        err_rel.append(np.mean((est - true[ones]) ** 2))
        err_raw.append(np.mean((rel.info["measured_cells"][ones] - true[ones]) ** 2))
    assert np.mean(err_rel) < 0.5 * np.mean(err_raw)


def test_generic_sdp_route_agrees_with_admm():
    D = _data(50, 5, seed=8)
    for degree in (4, 6):
        a = release_tables(D, 3, epsilon=2.0, delta=1e-6, rng=1, solver="admm", tol=1e-9, max_iter=30000,
                           on_fail="raise", degree=degree)
        b = release_tables(D, 3, epsilon=2.0, delta=1e-6, rng=1, solver="clarabel",
                           tol=1e-9 if degree == 4 else 1e-7, degree=degree)
        # Clarabel stops at 'AlmostSolved' below tol=1e-7 at degree 6, hence the looser check there
        np.testing.assert_allclose(a.moments, b.moments, atol=1e-5 if degree == 4 else 5e-5)
        assert a.info["degree"] == b.info["degree"] == degree


def test_discrete_noise_integer_measurements():
    D = _data(100, 5, seed=9)
    rel = release_tables(D, 2, epsilon=1.0, delta=1e-6, rng=2, noise="discrete")
    cells = rel.info["measured_cells"]
    np.testing.assert_array_equal(cells, np.round(cells))
    assert rel.info["noise"] == "discrete_gaussian"


def test_release_marginals_dispatch():
    D = _data(80, 5, seed=10)
    with noise_disabled():
        rel = marg.release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="tables", rng=0, solver="admm")
    assert rel.method == "tables"
    assert rel.query([0, 1]) == pytest.approx(_exact_count(D, (0, 1)), abs=1e-2)


def test_unconverged_admm_raises_when_asked():
    D = _data(20, 6, seed=11)
    with pytest.raises(ProjectionError):
        release_tables(D, 3, epsilon=0.5, delta=1e-6, rng=0, tol=1e-12, max_iter=3, on_fail="raise")


@pytest.mark.parametrize("kwargs, exc", [
    ({"k": 0}, InvalidParameterError),
    ({"k": 7}, InvalidParameterError),
    ({"k": 3, "degree": 3}, InvalidParameterError),
    ({"k": 3, "degree": 2}, InvalidParameterError),
    ({"k": 2, "workload": [(0, 1, 2)]}, InvalidParameterError),
    ({"k": 2, "solver": "mosek-ish"}, InvalidParameterError),
    ({"k": 2, "noise": "laplace"}, InvalidParameterError),
    ({"k": 2, "epsilon": -1.0}, InvalidParameterError),
    ({"k": 2, "delta": 1.5}, InvalidParameterError),
])
def test_bad_parameters(kwargs, exc):
    D = _data(10, 6)
    args = {"epsilon": 1.0, "delta": 1e-6, **kwargs}
    k = args.pop("k")
    with pytest.raises(exc):
        release_tables(D, k, **args)


@pytest.mark.parametrize("D", [np.array([[0, 2, 1]]), np.array([[0.0, np.nan, 1.0]]), np.zeros((0, 3))])
def test_bad_data_reveals_nothing(D):
    with pytest.raises(InvalidInputError) as info:
        release_tables(D, 2, epsilon=1.0, delta=1e-6)
    assert "2.0" not in str(info.value) and "[0" not in str(info.value)

"""Contingency tables, Moebius/Fourier measurement maps, sensitivity, exact polytope LS."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sps

from sosproj.data.contingency import (
    SubsetIndex,
    TableLayout,
    attribute_sets,
    contingency_tables,
    fourier_form,
    fourier_from_subset,
    measurement_matrix,
    subset_from_fourier,
    table_sensitivity,
    walsh_hadamard,
    worst_case_neighbour,
)
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.sdp.polytope_fista import polytope_least_squares


def _data(m, n, p=0.4, seed=0):
    return (np.random.default_rng(seed).random((m, n)) < p).astype(np.uint8)


def _brute_table(D, T):
    out = np.zeros((2,) * len(T), dtype=np.int64)
    for v in itertools.product([0, 1], repeat=len(T)):
        out[v] = np.sum(np.all(D[:, list(T)] == np.array(v), axis=1))
    return out


def _subset_moments(D, tuples):
    return np.array([np.mean(np.all(D[:, list(S)] == 1, axis=1)) if S else 1.0 for S in tuples])


WORKLOAD = [(0, 1, 2), (1, 3), (4,), (2, 3, 5), (0, 5)]


@pytest.mark.parametrize("sparse", [False, True])
def test_tables_match_brute_force_and_stream(sparse):
    D = _data(57, 6, seed=1)
    lay = TableLayout.from_workload(WORKLOAD, 6)
    X = sps.csr_matrix(D) if sparse else D
    tabs = contingency_tables(X, lay)
    for T, tab in zip(lay.sets, tabs):
        np.testing.assert_array_equal(tab, _brute_table(D, T))
        assert tab.sum() == 57
    flat_small_chunks = contingency_tables(X, lay, chunk_rows=5, flat=True)
    np.testing.assert_array_equal(flat_small_chunks, np.concatenate([t.ravel() for t in tabs]))


def test_all_k_way_layout_and_attribute_sets():
    lay = TableLayout.all_k_way(6, 3)
    assert lay.n_tables == 20 and lay.n_cells == 160
    assert [tuple(r) for r in attribute_sets(6, 3)] == list(itertools.combinations(range(6), 3))
    assert lay.table_index((2, 0, 1)) == 0


def test_measurement_matrix_is_moebius_inversion():
    D = _data(80, 6, seed=2)
    lay = TableLayout.from_workload(WORKLOAD, 6)
    idx = SubsetIndex(6, 3)
    B = measurement_matrix(lay, idx)
    y = _subset_moments(D, idx.tuples())
    np.testing.assert_allclose(B @ y, contingency_tables(D, lay, flat=True) / 80, atol=1e-14)
    # each table's cells sum to y_() = 1 for ANY y (consistency is structural)
    y_rand = np.random.default_rng(0).normal(size=len(idx))
    y_rand[0] = 1.0
    for tab in lay.split(B @ y_rand):
        assert tab.sum() == pytest.approx(1.0)


def test_fourier_maps_invert_and_match_definition():
    D = _data(40, 5, seed=3)
    idx = SubsetIndex(5, 4)
    F, G = fourier_from_subset(idx), subset_from_fourier(idx)
    np.testing.assert_allclose((G @ F).toarray(), np.eye(len(idx)), atol=1e-12)
    Z = 1 - 2 * D.astype(int)
    f = np.array([np.mean(np.prod(Z[:, list(S)], axis=1)) if S else 1.0 for S in idx.tuples()])
    np.testing.assert_allclose(F @ _subset_moments(D, idx.tuples()), f, atol=1e-12)


def test_fourier_form_equals_weighted_cell_objective():
    rng = np.random.default_rng(4)
    lay = TableLayout.from_workload(WORKLOAD, 6)
    idx = SubsetIndex(6, 3)
    B, F = measurement_matrix(lay, idx), fourier_from_subset(idx)
    c = rng.normal(size=lay.n_cells)
    w = rng.random(lay.n_tables) + 0.1
    ff = fourier_form(c, lay, idx, w)
    cw = np.repeat(w, np.diff(lay.offsets))
    for _ in range(5):
        y = rng.normal(size=len(idx))
        y[0] = 1.0
        assert ff.objective(F @ y) == pytest.approx(np.sum(cw * (B @ y - c) ** 2), rel=1e-12)


def test_walsh_hadamard_involution():
    v = np.random.default_rng(5).normal(size=32)
    np.testing.assert_allclose(walsh_hadamard(walsh_hadamard(v)), 32 * v, atol=1e-12)


@pytest.mark.parametrize("workload", [None, WORKLOAD])
def test_sensitivity_random_and_worst_case_pairs(workload):
    rng = np.random.default_rng(6)
    n = 6
    lay = TableLayout.all_k_way(n, 3) if workload is None else TableLayout.from_workload(workload, n)
    bound = table_sensitivity(lay)
    assert bound == pytest.approx(np.sqrt(2 * lay.n_tables))
    worst = 0.0
    for trial in range(200):
        D = _data(int(rng.integers(1, 30)), n, p=rng.random(), seed=trial)
        D2 = D.copy()
        i = int(rng.integers(D.shape[0]))
        D2[i] = rng.integers(0, 2, size=n) if trial % 2 else worst_case_neighbour(D[i])
        diff = contingency_tables(D, lay, flat=True) - contingency_tables(D2, lay, flat=True)
        norm = float(np.linalg.norm(diff))
        assert norm <= bound + 1e-12
        worst = max(worst, norm)
    assert worst == pytest.approx(bound)            # the complement row attains the bound


def test_polytope_least_squares_matches_cvxpy():
    import cvxpy as cp  # a core dependency: a plain import, never a skip
    n = 5
    lay = TableLayout.all_k_way(n, 3)
    D = _data(30, n, seed=7)
    c = contingency_tables(D, lay, flat=True) / 30 + np.random.default_rng(8).normal(scale=0.05,
                                                                                     size=lay.n_cells)
    w = np.random.default_rng(9).random(lay.n_tables) + 0.5
    fit = polytope_least_squares(c, lay, weights=w, tol=1e-9, max_iter=50000)
    assert fit.converged and fit.gap <= 1e-9 * max(1, fit.objective)
    # independent brute-force marginalization matrix (point index bit i = attribute i)
    pts = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1
    M = np.zeros((lay.n_cells, 2 ** n))
    for j, T in enumerate(lay.sets):
        code = np.zeros(2 ** n, dtype=int)
        for t in T:
            code = 2 * code + pts[:, t]
        M[lay.offsets[j] + code, np.arange(2 ** n)] = 1.0
    cw = np.repeat(np.sqrt(w), np.diff(lay.offsets))
    p = cp.Variable(2 ** n)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(cw, M @ p - c))), [p >= 0, cp.sum(p) == 1])
    prob.solve(solver="CLARABEL")
    assert fit.objective == pytest.approx(prob.value, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(M @ fit.distribution, M @ p.value, atol=2e-5)
    # the fitted moments are those of the fitted distribution
    np.testing.assert_allclose(measurement_matrix(lay, SubsetIndex(n, 3)) @ fit.moments,
                               M @ fit.distribution, atol=1e-10)


def test_polytope_exact_on_consistent_tables():
    D = _data(25, 6, seed=10)
    lay = TableLayout.all_k_way(6, 2)
    fit = polytope_least_squares(contingency_tables(D, lay, flat=True) / 25, lay, tol=1e-12, max_iter=50000)
    idx = SubsetIndex(6, 2)
    np.testing.assert_allclose(fit.moments, _subset_moments(D, idx.tuples()), atol=1e-5)


@pytest.mark.parametrize("bad, exc", [
    ([(0, 0)], InvalidParameterError),
    ([(0, 1), (1, 0)], InvalidParameterError),
    ([(0, 9)], InvalidParameterError),
    ([()], InvalidParameterError),
    ([], InvalidParameterError),
    ("01", InputTypeError),
    ([("a", 1)], InputTypeError),
])
def test_bad_workloads(bad, exc):
    with pytest.raises(exc):
        TableLayout.from_workload(bad, 4)


def test_bad_data_reveals_nothing():
    D = np.array([[0, 1], [7, 1]])
    with pytest.raises(InvalidInputError) as info:
        contingency_tables(D, TableLayout.all_k_way(2, 1))
    assert "7" not in str(info.value)
    with pytest.raises(InvalidInputError):
        contingency_tables(np.array([[0.0, np.nan]]), TableLayout.all_k_way(2, 1))
    with pytest.raises(InvalidInputError):
        contingency_tables(np.ones((3, 3)), TableLayout.all_k_way(2, 1))

"""Sensitivities of sosproj's measurements, by enumerating every adjacent pair on small domains.

Replace-one adjacency: one row of a dataset of ``m`` rows replaced by any other admissible
row. For every pair ``(x, x')`` of admissible rows (all of :math:`\\{0,1\\}^n`, or those with at
most ``t`` ones) the measurement is computed by sosproj's own functions on the two datasets
and the largest distance is compared with the sensitivity sosproj states:

* the normalized moment tensor :math:`T = \\frac1m\\sum_r (e^{(r)}/\\sqrt{s})^{\\otimes k}` of
  :func:`~sosproj.mechanisms.marginals.release_marginals` (``subset_moments`` then
  ``tensor_from_subset_moments``, the mechanism's code path) against
  :func:`~sosproj.data.moment_tensor.normalized_tensor_sensitivity`: ``1/m`` dense,
  ``sqrt(2)/m`` for ``t``-sparse rows with ``n >= 2t``;
* the concatenated contingency tables of :func:`~sosproj.mechanisms.marginal_tables.release_tables`
  (``contingency_tables``) against :func:`~sosproj.data.contingency.table_sensitivity`
  (``sqrt(2 * n_tables)``), attained by :func:`~sosproj.data.contingency.worst_case_neighbour`.

The bound for arbitrary non-negative rows of norm at most one (``docs/tables.md``) is not a
finite domain; it is checked on random pairs against a brute-force tensor.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sosproj.data.contingency import TableLayout, contingency_tables, table_sensitivity, worst_case_neighbour
from sosproj.data.moment_tensor import normalized_tensor_sensitivity, subset_moments, tensor_from_subset_moments


def _rows(n: int, t: int | None) -> list[np.ndarray]:
    return [np.array(r) for r in itertools.product([0, 1], repeat=n) if t is None or sum(r) <= t]


def _base(m: int, n: int, t: int | None, seed: int) -> np.ndarray:
    rows = _rows(n, t)
    idx = np.random.default_rng(seed).integers(0, len(rows), size=m)
    return np.array([rows[i] for i in idx])


def _max_pair_distance(measure, D: np.ndarray, rows: list[np.ndarray]) -> tuple[float, tuple[int, int]]:
    """Largest ||measure(D with row 0 = x) - measure(D with row 0 = x')|| over every pair of rows."""
    vals = []
    for x in rows:
        D2 = D.copy()
        D2[0] = x
        vals.append(np.asarray(measure(D2), dtype=float).ravel())
    V = np.array(vals)
    G = np.linalg.norm(V[:, None, :] - V[None, :, :], axis=2)
    i, j = np.unravel_index(np.argmax(G), G.shape)
    return float(G[i, j]), (int(i), int(j))


@pytest.mark.parametrize("n,k,t", [(3, 1, None), (4, 2, None), (5, 2, None), (4, 3, None), (3, 3, None),
                                   (4, 2, 2), (5, 2, 2), (6, 3, 3), (6, 2, 3), (4, 1, 1), (5, 3, 3)])
def test_normalized_tensor_sensitivity_by_enumeration(n: int, k: int, t: int | None) -> None:
    m = 7
    D = _base(m, n, t, seed=n * 10 + k)
    s = n if t is None else t

    def measure(X: np.ndarray) -> np.ndarray:
        _, mu = subset_moments(X, k, sparsity=t, on_violation="raise")
        return tensor_from_subset_moments(mu, n, k, scale=float(s) ** (-k / 2))

    rows = _rows(n, t)
    worst, (i, j) = _max_pair_distance(measure, D, rows)
    assert worst == pytest.approx(normalized_tensor_sensitivity(n, k, m, sparsity=t), rel=1e-12)
    if t is None and k >= 2:  # dense: attained by the all-ones row against the zero row only
        assert {rows[i].sum(), rows[j].sum()} == {0, n}
        assert worst == pytest.approx(1.0 / m, rel=1e-12)
    if t is not None and n >= 2 * t:
        assert worst == pytest.approx(np.sqrt(2.0) / m, rel=1e-12)


@pytest.mark.parametrize("layout", [TableLayout.all_k_way(3, 1), TableLayout.all_k_way(3, 2),
                                    TableLayout.all_k_way(4, 2), TableLayout.all_k_way(4, 3),
                                    TableLayout.from_workload([(0, 1), (2,), (1, 2, 3)], n=4)],
                         ids=["3-1", "3-2", "4-2", "4-3", "mixed"])
def test_table_sensitivity_by_enumeration(layout: TableLayout) -> None:
    n = layout.n
    D = _base(6, n, None, seed=layout.n_cells)
    rows = _rows(n, None)
    worst, _ = _max_pair_distance(lambda X: contingency_tables(X, layout, flat=True), D, rows)
    assert worst == pytest.approx(table_sensitivity(layout), rel=1e-12)
    for x in rows:  # the complement attains it from every row
        D2 = D.copy()
        D2[0] = x
        D3 = D.copy()
        D3[0] = worst_case_neighbour(x)
        d = np.linalg.norm(contingency_tables(D2, layout, flat=True) - contingency_tables(D3, layout, flat=True))
        assert d == pytest.approx(table_sensitivity(layout), rel=1e-12)


def _tensor(U: np.ndarray, k: int) -> np.ndarray:
    """(1/m) sum_r u_r^{(x) k}, brute force."""
    m, n = U.shape
    T = np.zeros((n,) * k)
    for u in U:
        t = u
        for _ in range(k - 1):
            t = np.multiply.outer(t, u)
        T += t
    return T / m


def _diff_norm(U, i, v, k):
    V = U.copy()
    V[i] = v
    return float(np.linalg.norm((_tensor(U, k) - _tensor(V, k)).ravel()))


@pytest.mark.parametrize("k", [2, 3])
def test_nonnegative_unit_rows_sensitivity_is_sqrt2_over_m(k):
    rng = np.random.default_rng(10 + k)
    n, m, t = 6, 5, 3
    worst = 0.0
    for _ in range(150):
        U = rng.random((m, n)) * (rng.random((m, n)) < 0.5)
        U /= np.maximum(1.0, np.linalg.norm(U, axis=1, keepdims=True))
        v = rng.random(n) * (rng.random(n) < 0.5)
        v /= max(1.0, float(np.linalg.norm(v)))
        worst = max(worst, _diff_norm(U, int(rng.integers(m)), v, k))
    assert worst <= np.sqrt(2.0) / m + 1e-12
    # t-sparse binary rows scaled by 1/sqrt(t): disjoint supports attain sqrt(2)/m
    U = np.zeros((m, n))
    U[0, :t] = 1 / np.sqrt(t)
    v = np.zeros(n)
    v[t:2 * t] = 1 / np.sqrt(t)
    assert _diff_norm(U, 0, v, k) == pytest.approx(np.sqrt(2.0) / m)

"""Moment tensors and subset counts against brute force; streaming; sparsity policy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp

from sosproj.data.moment_tensor import (
    SubsetCountAccumulator,
    moment_tensor,
    multisets,
    n_subsets_upto,
    normalized_tensor_sensitivity,
    pool_tensor,
    subset_counts,
    subset_counts_stream,
    subsets_upto,
    support_weights,
    tensor_from_subset_moments,
    tensor_sq_error,
    truncate_rows,
)
from sosproj.data.synthetic import planted_binary, sparse_binary
from sosproj.errors import DataPolicyError, InputTypeError, InvalidInputError, InvalidParameterError


def brute_tensor(D: np.ndarray, k: int, s: float) -> np.ndarray:
    D = np.asarray(D, dtype=float) / math.sqrt(s)
    T = np.zeros((D.shape[1],) * k)
    for row in D:
        t = row
        for _ in range(k - 1):
            t = np.multiply.outer(t, row)
        T += t
    return T / D.shape[0]


def brute_counts(D: np.ndarray, k: int) -> np.ndarray:
    D = np.asarray(D)
    return np.array([int(np.all(D[:, list(S)] == 1, axis=1).sum()) if S else D.shape[0]
                     for S in subsets_upto(D.shape[1], k)])


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_full_and_orbit_tensor_match_brute_force(k):
    D = planted_binary(37, 5, rng=k)
    T = moment_tensor(D, k, form="full")
    np.testing.assert_allclose(T, brute_tensor(D, k, 5), atol=1e-14)
    orbits, weights = multisets(5, k)
    orbit = moment_tensor(D, k, form="orbit")
    np.testing.assert_allclose(orbit, T[tuple(orbits.T)], atol=1e-14)
    assert weights.sum() == 5**k
    # Frobenius norm through orbit weights
    assert np.isclose(np.sum(weights * orbit**2), np.sum(T**2))
    assert np.sum(T**2) <= 1 + 1e-12


@pytest.mark.parametrize("k", [1, 2, 3])
def test_subset_counts_dense_sparse_and_chunks_agree(k):
    D = planted_binary(101, 7, rng=3)
    ref = brute_counts(D, k)
    subs, c = subset_counts(D, k)
    assert subs == subsets_upto(7, k)
    np.testing.assert_array_equal(c, ref)
    np.testing.assert_array_equal(subset_counts(sp.csr_matrix(D), k)[1], ref)
    np.testing.assert_array_equal(subset_counts(D, k, chunk_rows=1)[1], ref)
    np.testing.assert_array_equal(subset_counts(D, k, chunk_rows=13)[1], ref)
    chunks = (D[i:i + 20] for i in range(0, 101, 20))
    np.testing.assert_array_equal(subset_counts_stream(chunks, 7, k)[1], ref)


def test_sparse_generator_counts_and_sparsity():
    S = sparse_binary(300, 40, 4, rng=2)
    assert sp.issparse(S) and S.sum(axis=1).max() <= 4
    ref = brute_counts(S.toarray(), 3)
    np.testing.assert_array_equal(subset_counts(S, 3, sparsity=4)[1], ref)


def test_streaming_accumulator_large_m_is_exact():
    g = np.random.default_rng(0)
    acc = SubsetCountAccumulator(6, 2, chunk_rows=50_000)
    total = np.zeros(n_subsets_upto(6, 2), dtype=np.int64)
    for _ in range(4):
        chunk = (g.random((100_000, 6)) < 0.5).astype(np.uint8)
        acc.update(chunk)
        total += brute_counts(chunk, 2)
    assert acc.m == 400_000
    np.testing.assert_array_equal(acc.result()[1], total)


def test_truncation_rule_and_raise_policy():
    D = np.array([[1, 1, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]])
    T = truncate_rows(D, 2)
    assert T.tolist() == [[1, 1, 0, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    Ts = truncate_rows(sp.csr_matrix(D), 2)
    assert Ts.toarray().tolist() == T.tolist()
    np.testing.assert_array_equal(subset_counts(D, 2, sparsity=2)[1], brute_counts(T, 2))
    with pytest.raises(DataPolicyError) as err:
        subset_counts(D, 2, sparsity=2, on_violation="raise")
    assert "row" in str(err.value) and "3" not in str(err.value).replace("sparsity", "")


def test_pooling_is_projection_and_inverse_of_tensor_builder():
    D = planted_binary(50, 4, rng=1)
    subs, c = subset_counts(D, 3)
    mu = c / c[0]
    T = tensor_from_subset_moments(mu, 4, 3)
    np.testing.assert_allclose(pool_tensor(T, 3)[1:], mu[1:], atol=1e-14)
    # pooling a random tensor equals averaging its entries per support (brute force)
    Y = np.random.default_rng(0).standard_normal((4, 4, 4))
    pooled = pool_tensor(Y, 3)
    for i, S in enumerate(subs[1:], start=1):
        vals = [Y[a] for a in itertools.product(range(4), repeat=3) if set(a) == set(S)]
        assert np.isclose(pooled[i], np.mean(vals))
    assert support_weights(4, 3).sum() == 64
    # tensor_sq_error agrees with the full tensors
    mu2 = mu + np.random.default_rng(1).normal(0, 0.1, mu.shape)
    full = np.sum((tensor_from_subset_moments(mu2, 4, 3) - T) ** 2)
    assert np.isclose(tensor_sq_error(mu2, mu, 4, 3), full)


@pytest.mark.parametrize("n,k,t", [(4, 1, None), (4, 2, None), (4, 3, None), (5, 2, 2), (5, 3, 3), (4, 3, 3)])
def test_sensitivity_is_exact_max_over_all_row_pairs(n, k, t):
    m = 7
    rows = [np.array(r) for r in itertools.product([0, 1], repeat=n) if t is None or sum(r) <= t]
    s = n if t is None else t
    tens = [brute_tensor(r[None, :], k, s) / m for r in rows]  # contribution of one row to T
    best = max(np.linalg.norm(a - b) for a in tens for b in tens)
    assert np.isclose(best, normalized_tensor_sensitivity(n, k, m, t), rtol=1e-12)
    assert best <= 2 / m  # the paper's l2^2 = 4/m^2 claim holds (loosely)
    if t is None:
        assert np.isclose(best, 1 / m)


def test_sensitivity_random_and_worst_case_adjacent_datasets():
    g = np.random.default_rng(5)
    n, k, m = 8, 3, 40
    Delta = normalized_tensor_sensitivity(n, k, m)
    for _trial in range(200):
        D = (g.random((m, n)) < g.random()).astype(np.uint8)
        D2 = D.copy()
        D2[g.integers(m)] = (g.random(n) < g.random()).astype(np.uint8)
        diff = np.linalg.norm(moment_tensor(D, k, form="full") - moment_tensor(D2, k, form="full"))
        assert diff <= Delta * (1 + 1e-12)
    D = np.zeros((m, n), dtype=np.uint8)
    D2 = D.copy()
    D2[0] = 1
    diff = np.linalg.norm(moment_tensor(D, k, form="full") - moment_tensor(D2, k, form="full"))
    assert np.isclose(diff, Delta)
    # t-sparse worst case: disjoint supports
    t = 3
    Dt = np.zeros((m, n), dtype=np.uint8)
    Dt[0, :3] = 1
    Dt2 = np.zeros((m, n), dtype=np.uint8)
    Dt2[0, 3:6] = 1
    diff = np.linalg.norm(moment_tensor(Dt, k, sparsity=t, form="full")
                          - moment_tensor(Dt2, k, sparsity=t, form="full"))
    assert np.isclose(diff, normalized_tensor_sensitivity(n, k, m, t))
    assert np.isclose(diff, math.sqrt(2) / m)


@pytest.mark.parametrize("bad,err", [
    (np.array([[0, 2], [1, 0]]), InvalidInputError),
    (np.array([[0.0, np.nan], [1, 0]]), InvalidInputError),
    (np.zeros((0, 3)), InvalidInputError),
    ("abc", InputTypeError),
    (np.array([[0, 0.123456], [1, 0]]), InvalidInputError),
])
def test_bad_data_rejected_without_values(bad, err):
    with pytest.raises(err) as e:
        subset_counts(bad, 1)
    assert "0.123456" not in str(e.value) and "nan" not in str(e.value).lower().replace("nan or", "")


def test_bad_k():
    D = np.eye(3, dtype=int)
    with pytest.raises(InvalidParameterError):
        subset_counts(D, 0)
    with pytest.raises(InvalidParameterError):
        subset_counts(D, 4)
    with pytest.raises(InvalidParameterError):
        subset_counts(D, 3, sparsity=2)


def test_lexicographic_rank_of_combinations():
    acc = SubsetCountAccumulator(9, 4)
    for j in range(1, 5):
        combs = np.array(list(itertools.combinations(range(9), j)))
        np.testing.assert_array_equal(acc._lex_rank(combs), np.arange(len(combs)))


def test_pool_and_tensor_builder_refuse_bad_arrays():
    Y = np.zeros((3, 3))
    Y[0, 1] = np.nan
    with pytest.raises(InvalidInputError):
        pool_tensor(Y, 2)
    with pytest.raises(InputTypeError):
        pool_tensor(np.array([["a"]]), 2)
    with pytest.raises(InvalidInputError):
        pool_tensor(np.zeros((3, 4)), 2)
    mu = np.zeros(n_subsets_upto(3, 2))
    mu[2] = np.inf
    with pytest.raises(InvalidInputError):
        tensor_from_subset_moments(mu, 3, 2)
    with pytest.raises(InputTypeError):
        tensor_from_subset_moments(np.array(["a"]), 3, 2)

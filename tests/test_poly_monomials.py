"""Monomials: enumeration, exact hashing/lookup, orbits of index tuples, series counts."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sosproj.errors import InvalidInputError
from sosproj.poly.monomials import (
    LinearKey,
    MonomialIndex,
    count_monomials,
    divisible_by_any,
    index_tuples,
    monomials_up_to,
    orbit_weights,
    power_series_counts,
    series_counts,
    to_multiset,
    tuple_keys,
    tuples_to_exponents,
    unique_rows,
)


def _brute_monomials(nv: int, d: int) -> set[tuple[int, ...]]:
    return {e for e in itertools.product(range(d + 1), repeat=nv) if sum(e) <= d}


@pytest.mark.parametrize("nv,d", [(1, 5), (2, 3), (3, 4), (5, 2), (4, 0)])
def test_monomials_up_to_matches_brute_force(nv, d):
    M = monomials_up_to(nv, d)
    rows = [tuple(r) for r in M.tolist()]
    assert len(rows) == len(set(rows)) == count_monomials(nv, d)
    assert set(rows) == _brute_monomials(nv, d)
    degs = M.sum(axis=1)
    assert np.all(np.diff(degs) >= 0)          # graded
    assert rows[0] == (0,) * nv                 # constant first


def test_standard_monomials_equal_brute_force_filter():
    L = np.array([[2, 0, 0], [0, 1, 1], [0, 0, 3]])
    M = monomials_up_to(3, 5, leading=L)
    brute = {e for e in _brute_monomials(3, 5)
             if not any(all(a >= b for a, b in zip(e, lm)) for lm in L.tolist())}
    assert {tuple(r) for r in M.tolist()} == brute
    assert not divisible_by_any(M, L).any()
    blocks = monomials_up_to(3, 5, leading=L, by_degree=True)
    assert [len(b) for b in blocks] == [sum(1 for e in brute if sum(e) == j) for j in range(6)]


def test_unique_rows_and_index_exact():
    rng = np.random.default_rng(1)
    E = rng.integers(0, 3, size=(500, 6))
    u, inv = unique_rows(E)
    assert np.array_equal(u[inv], E)
    assert len(u) == len({tuple(r) for r in E.tolist()})
    idx = MonomialIndex(u)
    assert np.array_equal(idx.lookup(E), inv)
    absent = np.full((1, 6), 7)
    assert idx.lookup(absent, missing=-1).tolist() == [-1]
    with pytest.raises(InvalidInputError):
        idx.lookup(absent)
    with pytest.raises(InvalidInputError):
        idx.lookup(np.zeros((1, 5), dtype=int))


@pytest.mark.parametrize("nv,d", [(3, 4), (40, 8)])
def test_linear_key_is_linear_and_injective(nv, d):
    rng = np.random.default_rng(2)
    lk = LinearKey(nv, d)
    assert lk.exact == ((d + 1) ** nv < 2 ** 63)
    a = rng.integers(0, 2, size=(300, nv))
    b = rng.integers(0, 2, size=(300, nv))
    ka, kb, kab = lk.keys(a), lk.keys(b), lk.keys(a + b)
    for x, y, z in zip(ka, kb, kab):
        with np.errstate(over="ignore"):
            assert np.array_equal(x + y, z)
    E = np.concatenate([a, b, a + b])
    first, inv = lk.unique(lk.keys(E))
    assert np.array_equal(E[first][inv], E)
    assert len(first) == len({tuple(r) for r in E.tolist()})


@pytest.mark.parametrize("n,k", [(1, 3), (3, 2), (4, 3), (3, 4), (5, 1)])
def test_index_tuples_and_orbit_weights(n, k):
    T = index_tuples(n, k)
    assert len(T) == math.comb(n + k - 1, k)
    assert np.all(np.diff(T, axis=1) >= 0)
    keys = tuple_keys(T, n)
    assert np.all(np.diff(keys) > 0)   # lexicographic, strictly increasing
    counts = Counter(tuple(sorted(t)) for t in itertools.product(range(n), repeat=k))
    w = orbit_weights(T)
    assert [counts[tuple(t)] for t in T.tolist()] == w.tolist()
    assert int(w.sum()) == n ** k


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=6))
def test_orbit_weight_is_multinomial(idx):
    t = np.array([sorted(idx)])
    k = len(idx)
    expect = math.factorial(k)
    for c in Counter(idx).values():
        expect //= math.factorial(c)
    assert orbit_weights(t).tolist() == [expect]


def test_tuples_to_exponents_and_multiset():
    T = np.array([[0, 0, 1], [1, 1, 1]])
    E = tuples_to_exponents(T, np.array([2, 0]), 3)
    assert E.tolist() == [[1, 0, 2], [3, 0, 0]]
    assert to_multiset(E, width=4, pad=9).tolist() == [[0, 2, 2, 9], [0, 0, 0, 9]]


def test_series_counts_match_enumeration():
    # two free variables and one Boolean variable
    factors = [[1] * 6, [1] * 6, [1, 1]]
    counts = series_counts(factors, 5)
    brute = Counter(sum(e) for e in itertools.product(range(6), range(6), range(2)) if sum(e) <= 5)
    assert counts == [brute[j] for j in range(6)]
    assert power_series_counts([1, 1], 7, 7) == [math.comb(7, j) for j in range(8)]


def test_to_multiset_matches_a_loop_reference_on_any_integer_dtype():
    """``to_multiset`` from the nonzero exponents (issue 15, session 29: no ``m x n_vars`` int64 copies) equals a
    plain loop over rows and variables, for narrow integer and float exponent arrays, with and without width."""
    rng = np.random.default_rng(5)
    for dt in (np.int8, np.int16, np.int64, float):
        for m, nv in ((1, 1), (6, 3), (150, 9), (0, 4), (4, 0)):
            E = rng.integers(0, 4, (m, nv)).astype(dt)
            for width, pad in ((None, -1), (3 * nv + 2, nv)):
                deg = E.sum(axis=1).astype(int)
                w = int(deg.max(initial=0)) if width is None else width
                ref = np.full((m, w), pad, dtype=np.int64)
                for i in range(m):
                    row = [v for v in range(nv) for _ in range(int(E[i, v]))]
                    ref[i, :len(row)] = row
                out = to_multiset(E, width=width, pad=pad)
                assert out.dtype == np.int64 and np.array_equal(out, ref)

"""Sensitivity bounds proved in docs/tables.md for the normalized moment tensor of non-negative data.

* any non-negative rows with ||u|| <= 1 (e.g. t-sparse rows scaled by 1/sqrt(t)): sqrt(2)/m, tight;
* binary rows scaled by 1/sqrt(n) (the dense normalization): 1/m, tight.
Checked by brute force on random and worst-case adjacent pairs (replace-one).
"""

from __future__ import annotations

import numpy as np
import pytest


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
def test_dense_binary_normalization_sensitivity_is_one_over_m(k):
    rng = np.random.default_rng(k)
    n, m = 5, 7
    worst = 0.0
    for _ in range(150):
        X = (rng.random((m, n)) < rng.random()).astype(float)
        i = int(rng.integers(m))
        x_new = (rng.random(n) < rng.random()).astype(float)
        worst = max(worst, _diff_norm(X / np.sqrt(n), i, x_new / np.sqrt(n), k))
    X = np.zeros((m, n))
    X[0] = 1.0                                      # all-ones row replaced by the zero row
    tight = _diff_norm(X / np.sqrt(n), 0, np.zeros(n), k)
    assert worst <= 1.0 / m + 1e-12
    assert tight == pytest.approx(1.0 / m)
    assert tight < 2.0 / m                          # the paper's bound is loose


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

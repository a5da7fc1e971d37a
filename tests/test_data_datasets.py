"""Bundled datasets and synthetic generators."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.data.datasets import DIGITS_THRESHOLD, list_datasets, load_dataset
from sosproj.data.synthetic import planted_binary, sparse_binary
from sosproj.errors import InvalidParameterError


def test_digits_binary_and_real_are_the_same_pixels():
    D, meta = load_dataset("digits")
    R, meta_r = load_dataset("digits-real")
    assert D.shape == R.shape == (1797, 64) and D.dtype == np.uint8
    assert set(np.unique(D)) <= {0, 1}
    np.testing.assert_array_equal(D, (R * 16 >= DIGITS_THRESHOLD).astype(np.uint8))
    assert meta["kind"] == "binary" and meta_r["kind"] == "real" and meta["licence"] == "CC BY 4.0"
    assert 0.0 <= R.min() and R.max() <= 1.0
    assert meta["target"].shape == (1797,)


def test_breast_cancer_onehot_is_t_sparse_one_hot():
    D, meta = load_dataset("breast-cancer-onehot")
    assert D.shape == (569, 32) and meta["sparsity"] == 11
    assert np.all(D.sum(axis=1) == 11)
    # each feature block of 3 columns is one-hot, the diagnosis block too
    for j in range(10):
        assert np.all(D[:, 3 * j:3 * j + 3].sum(axis=1) == 1)
    assert np.all(D[:, 30:].sum(axis=1) == 1)
    assert len(meta["columns"]) == 32 and meta["columns"][-1] == "diagnosis=benign"
    # tertile bins: roughly balanced
    assert np.all(np.abs(D[:, :30].mean(axis=0) - 1 / 3) < 0.01)


def test_matches_scikit_learn_source_when_available():
    sk = pytest.importorskip("sklearn.datasets")
    D, _ = load_dataset("digits-real")
    np.testing.assert_array_equal(D * 16, sk.load_digits().data)


def test_column_selection_and_errors():
    D, meta = load_dataset("breast-cancer-onehot", columns=[30, 31, 0])
    assert D.shape == (569, 3) and meta["columns"][0] == "diagnosis=malignant"
    with pytest.raises(InvalidParameterError):
        load_dataset("nope")
    with pytest.raises(InvalidParameterError):
        load_dataset("digits", columns=[64])
    with pytest.raises(InvalidParameterError):
        load_dataset("digits", columns=[1, 1])
    assert set(list_datasets()) == {"digits", "digits-real", "breast-cancer-onehot", "nltcs", "adult", "titanic"}


def test_generators_are_reproducible_and_correlated():
    a = planted_binary(2000, 6, n_clusters=2, concentration=0.2, rng=7)
    b = planted_binary(2000, 6, n_clusters=2, concentration=0.2, rng=7)
    np.testing.assert_array_equal(a, b)
    C = np.corrcoef(a.T.astype(float))
    assert np.max(np.abs(C - np.eye(6))) > 0.2      # planted correlations are visible
    S = sparse_binary(500, 30, 5, rng=1)
    assert S.shape == (500, 30) and S.sum(axis=1).max() <= 5 and S.sum(axis=1).min() >= 1
    with pytest.raises(InvalidParameterError):
        sparse_binary(10, 5, 6)

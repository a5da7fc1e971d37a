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


# SHA-256 of scikit-learn's digits data (sklearn/datasets/data/digits.csv.gz in the scikit-learn 1.9.1
# wheel, read with np.loadtxt(..., delimiter=","), last column (the label) dropped, as uint8 bytes in C
# order; the same array sklearn.datasets.load_digits().data returns). Recomputed from the wheel by
#   pip download scikit-learn==1.9.1 --no-deps; python -c "import zipfile, gzip, io, hashlib, numpy as np;
#   z = zipfile.ZipFile('<wheel>'); a = np.loadtxt(io.BytesIO(gzip.decompress(z.read(
#   'sklearn/datasets/data/digits.csv.gz'))), delimiter=','); print(hashlib.sha256(
#   a[:, :-1].astype(np.uint8).tobytes()).hexdigest())"
SKLEARN_DIGITS_SHA256 = "8f26b2bd9d135c256808f68f14fdabddde6d9c7f869ae419704b051f0f14b3b3"


def test_bundled_digits_match_the_scikit_learn_source():
    """Provenance, run in CI without scikit-learn: the bundled pixels hash to scikit-learn's data."""
    import hashlib

    D, _ = load_dataset("digits-real")
    pixels = np.asarray(D) * 16
    assert pixels.shape == (1797, 64)
    np.testing.assert_array_equal(pixels, np.rint(pixels))  # exact sixteenths
    digest = hashlib.sha256(np.rint(pixels).astype(np.uint8).tobytes()).hexdigest()
    assert digest == SKLEARN_DIGITS_SHA256


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

"""Rebuild the bundled datasets in ``sosproj/data/bundled/``.

Run ``python -m sosproj.data._build_bundled`` for the scikit-learn sets (needs the optional
``scikit-learn`` dependency; no network access: scikit-learn ships both sources inside its wheel),
and ``python -m sosproj.data._build_bundled PATH`` for nltcs, adult and titanic from the
CSV + domain JSON copies in ``PATH`` (``../shared/data``).
The output is deterministic; ``bundled/README.md`` documents provenance, licences and
the exact preprocessing applied here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

BUNDLED = Path(__file__).resolve().parent / "bundled"

#: Public binarization threshold for the digits pixels (intensities 0..16).
DIGITS_THRESHOLD = 8
#: Number of equal-frequency bins per breast-cancer feature.
BC_BINS = 3
#: The ten "mean" features of the Wisconsin diagnostic breast cancer data.
BC_FEATURES = 10


def build_digits() -> None:
    """Store the raw 8x8 digit intensities (uint8 0..16) and the class labels."""
    from sklearn.datasets import load_digits

    d = load_digits()
    pixels = d.data.astype(np.uint8)
    np.savez_compressed(BUNDLED / "digits.npz", pixels=pixels, target=d.target.astype(np.uint8))


def build_breast_cancer_onehot() -> None:
    """One-hot encode 10 tertile-binned features plus the diagnosis (every row has 11 ones)."""
    from sklearn.datasets import load_breast_cancer

    b = load_breast_cancer()
    X = b.data[:, :BC_FEATURES]
    names: list[str] = []
    blocks = []
    cuts = {}
    for j in range(BC_FEATURES):
        edges = np.quantile(X[:, j], [1 / 3, 2 / 3])
        cuts[str(b.feature_names[j])] = [float(e) for e in edges]
        code = np.searchsorted(edges, X[:, j], side="right")
        onehot = np.zeros((X.shape[0], BC_BINS), dtype=np.uint8)
        onehot[np.arange(X.shape[0]), code] = 1
        blocks.append(onehot)
        label = str(b.feature_names[j]).replace(" ", "_")
        names += [f"{label}=low", f"{label}=mid", f"{label}=high"]
    diag = np.zeros((X.shape[0], 2), dtype=np.uint8)
    diag[np.arange(X.shape[0]), b.target] = 1
    blocks.append(diag)
    names += [f"diagnosis={t}" for t in b.target_names]
    D = np.hstack(blocks)
    np.savez_compressed(BUNDLED / "breast_cancer_onehot.npz", data=np.packbits(D, axis=1),
                        n_columns=np.array(D.shape[1]), columns=np.array(names),
                        cut_points=np.array(json.dumps(cuts)))


#: The categorical benchmark datasets copied from ``../shared/data`` (hd-datasets, ``clean/``).
CATEGORICAL = ("nltcs", "adult", "titanic")


def build_categorical(source: str | Path, name: str) -> None:
    """Store ``name.csv`` + ``name-domain.json`` of ``source`` as uint8 codes, names and sizes.

    The attribute order is the domain JSON's (columns are matched by name).
    """
    from sosproj.data.domain import Dataset

    src = Path(source)
    ds = Dataset.from_csv(src / f"{name}.csv", src / f"{name}-domain.json")
    np.savez_compressed(BUNDLED / f"{name}.npz", codes=ds.records.astype(np.uint8),
                        names=np.array(ds.domain.names), sizes=np.array(ds.domain.sizes, dtype=np.int64))


if __name__ == "__main__":  # pragma: no cover
    import sys

    if len(sys.argv) > 1:                     # python -m sosproj.data._build_bundled ../shared/data
        for nm in CATEGORICAL:
            build_categorical(sys.argv[1], nm)
    else:
        build_digits()
        build_breast_cancer_onehot()
    print("wrote", sorted(p.name for p in BUNDLED.glob("*.npz")))

"""Loaders for the small real datasets bundled with sosproj (offline; see ``bundled/README.md``).

=========================  ======  ====  =====================================================
name                       m       n     content
=========================  ======  ====  =====================================================
``digits``                 1797    64    UCI optical digits, 8x8 pixels binarized at >= 8 (0..16)
``digits-real``            1797    64    the same pixels as floats in [0, 1] (cosine demo)
``breast-cancer-onehot``   569     32    10 tertile-binned features + diagnosis, one-hot
                                         (exactly 11 ones per row: ``t``-sparse with t = 11)
=========================  ======  ====  =====================================================

``load_dataset(name, columns=None)`` returns ``(D, meta)``: ``D`` a numpy array
(``uint8`` 0/1 for binary sets, ``float64`` for ``digits-real``) and ``meta`` a dict
with ``name``, ``kind`` (``"binary"`` or ``"real"``), ``sparsity`` (the public row
bound ``t`` or ``None``), ``columns`` (attribute names), ``source``, ``licence``.
``columns`` selects attributes by index (a public choice, e.g. for small-``n`` benchmarks).

The categorical benchmark datasets of the private-marginal literature return a
:class:`~sosproj.data.domain.Dataset` (integer codes + named domain) instead:

=========================  ======  ====  =====================================================
name                       m       n     content
=========================  ======  ====  =====================================================
``nltcs``                  21574   16    National Long Term Care Survey, 16 binary attributes
``adult``                  48842   15    UCI Adult, 2-42 values per attribute
``titanic``                1304    9     Titanic passenger list, 2-91 values per attribute
=========================  ======  ====  =====================================================

(copied unchanged from ``ryan112358/hd-datasets`` commit 8e69757, ``clean/``; provenance and
licences in ``bundled/README.md``).

Examples
--------
>>> D, meta = load_dataset("breast-cancer-onehot")
>>> D.shape, meta["sparsity"], int(D.sum(axis=1).max())
((569, 32), 11, 11)
>>> sorted(list_datasets())
['adult', 'breast-cancer-onehot', 'digits', 'digits-real', 'nltcs', 'titanic']
>>> ds = load_dataset("titanic")
>>> ds.m, ds.domain.names[:2], ds.domain.size_of("Age")
(1304, ('Survived', 'Pclass'), 91)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.validation import check_choice

__all__ = ["load_dataset", "list_datasets", "DIGITS_THRESHOLD"]

_BUNDLED = Path(__file__).resolve().parent / "bundled"

#: Public binarization threshold for digit pixel intensities (0..16).
DIGITS_THRESHOLD = 8

_UCI_DIGITS = ("UCI ML Optical Recognition of Handwritten Digits (Alpaydin & Kaynak 1998), "
               "scikit-learn's offline copy sklearn.datasets.load_digits")
_UCI_BC = ("UCI ML Breast Cancer Wisconsin (Diagnostic) (Wolberg, Street, Mangasarian 1995), "
           "scikit-learn's offline copy sklearn.datasets.load_breast_cancer")

_HD = ("ryan112358/hd-datasets (commit 8e69757, folder clean/), the discretized benchmark copies "
       "used by Private-PGM, AIM, MST, GReM-LNN and ResidualPlanner")

_INFO: dict[str, dict[str, Any]] = {
    "nltcs": {"kind": "categorical", "source": "National Long Term Care Survey extract; " + _HD,
              "licence": "redistribution statement in the source repository",
              "description": "NLTCS functional disability measures, 21,574 records x 16 binary attributes"},
    "adult": {"kind": "categorical", "source": "UCI Adult (census income); " + _HD, "licence": "CC BY 4.0",
              "description": "UCI Adult, 48,842 records x 15 attributes (2-42 values; numeric columns binned)"},
    "titanic": {"kind": "categorical", "source": "Titanic passenger list (train + test); " + _HD,
                "licence": "see the source repository",
                "description": "Titanic passengers, 1,304 records x 9 attributes (2-91 values)"},
    "digits": {"kind": "binary", "sparsity": None, "source": _UCI_DIGITS, "licence": "CC BY 4.0",
               "description": "8x8 digit images, pixel = 1 iff intensity >= 8 (of 16)"},
    "digits-real": {"kind": "real", "sparsity": None, "source": _UCI_DIGITS, "licence": "CC BY 4.0",
                    "description": "8x8 digit images, intensities / 16 in [0, 1]"},
    "breast-cancer-onehot": {
        "kind": "binary", "sparsity": 11, "source": _UCI_BC, "licence": "CC BY 4.0",
        "description": "10 'mean' features binned at their tertiles + diagnosis, one-hot encoded"},
}


def list_datasets() -> dict[str, str]:
    """Names of the bundled datasets and one-line descriptions.

    >>> "digits" in list_datasets()
    True
    """
    return {k: v["description"] for k, v in _INFO.items()}


def _digits() -> tuple[np.ndarray, np.ndarray]:
    with np.load(_BUNDLED / "digits.npz") as f:
        return f["pixels"], f["target"]


def load_dataset(name: str, columns: Any = None) -> Any:
    """Load a bundled dataset: ``(D, meta)``, or a ``Dataset`` for nltcs/adult/titanic (module docstring).

    ``columns``: optional sequence of attribute indices to keep (in the given order).
    Selecting columns keeps every row bound (a row of a ``t``-sparse set stays ``t``-sparse).

    >>> D, meta = load_dataset("digits", columns=[27, 28, 35, 36])
    >>> D.shape, meta["columns"][0]
    ((1797, 4), 'pixel_3_3')
    """
    check_choice(name, "name", tuple(_INFO))
    info = dict(_INFO[name])
    if info["kind"] == "categorical":
        return _categorical(name, columns)
    if name in ("digits", "digits-real"):
        pixels, target = _digits()
        D = (pixels >= DIGITS_THRESHOLD).astype(np.uint8) if name == "digits" else pixels / 16.0
        names = [f"pixel_{i // 8}_{i % 8}" for i in range(64)]
        info["target"] = target
    else:
        with np.load(_BUNDLED / "breast_cancer_onehot.npz") as f:
            ncol = int(f["n_columns"])
            D = np.unpackbits(f["data"], axis=1)[:, :ncol].astype(np.uint8)
            names = [str(c) for c in f["columns"]]
            info["cut_points"] = json.loads(str(f["cut_points"]))
    if columns is not None:
        cols = np.asarray(columns)
        if cols.ndim != 1 or cols.size == 0 or not np.issubdtype(cols.dtype, np.integer):
            raise InvalidParameterError("columns must be a non-empty sequence of attribute indices")
        if cols.min() < 0 or cols.max() >= D.shape[1] or len(set(cols.tolist())) != cols.size:
            raise InvalidParameterError(
                f"columns must be distinct indices in [0, {D.shape[1]}); see meta['columns'] for names")
        D = D[:, cols]
        names = [names[i] for i in cols]
    info.update(name=name, columns=names, m=D.shape[0], n=D.shape[1])
    return np.ascontiguousarray(D), info


def _categorical(name: str, columns: Any) -> Any:
    from sosproj.data.domain import Dataset, Domain

    with np.load(_BUNDLED / f"{name}.npz") as f:
        codes, names, sizes = f["codes"], [str(c) for c in f["names"]], [int(s) for s in f["sizes"]]
    dom = Domain(tuple(names), tuple(sizes))
    if columns is not None:
        cols = dom.indices(columns, "columns")
        dom = Domain(tuple(names[c] for c in cols), tuple(sizes[c] for c in cols))
        codes = codes[:, list(cols)]
    return Dataset(codes, dom)

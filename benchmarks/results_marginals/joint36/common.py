"""Shared loading for the joint36 diagnostics (run from the repo root; see COMMAND.md)."""

from __future__ import annotations

import sys

import numpy as np

import sosproj as sp

sys.path.insert(0, "benchmarks")
from joint_study import SHAPES  # noqa: E402


def load(name: str) -> np.ndarray:
    """A study shape of ``benchmarks/joint_study.py`` (same data seed) or a bundled dataset, as a 0/1 array."""
    if name in SHAPES:
        gen, n, m, kw = SHAPES[name]
        X = gen(m, n, rng=1000 + list(SHAPES).index(name), **kw)
        return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.uint8)
    return np.asarray(sp.load_dataset(name).records)

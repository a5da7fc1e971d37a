"""Benchmark datasets: the CSV + domain JSON of ``../shared/data`` (columns mapped by NAME) and planted data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

DATA_DIR = Path("/work/shared/data")
REAL = ("nltcs", "titanic", "adult")


def load_csv_domain(name: str, data_dir: Path | str = DATA_DIR) -> tuple[np.ndarray, list[str], list[int]]:
    """Records (m x d int, columns in the domain JSON's order), attribute names and sizes.

    The JSON's attribute order differs from the CSV header: columns are matched by name.
    """
    data_dir = Path(data_dir)
    with open(data_dir / f"{name}-domain.json") as fh:
        dom = json.load(fh)
    with open(data_dir / f"{name}.csv") as fh:
        header = fh.readline().strip().split(",")
    if sorted(header) != sorted(dom):
        raise ValueError(f"{name}: CSV header and domain JSON name different attributes")
    raw = np.loadtxt(data_dir / f"{name}.csv", delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    names = list(dom)
    X = raw[:, [header.index(a) for a in names]]
    sizes = [int(dom[a]) for a in names]
    if X.min() < 0 or np.any(X.max(axis=0) >= np.array(sizes)):
        raise ValueError(f"{name}: codes outside the domain")
    return X, names, sizes


def planted(n: int, m: int = 20000, seed: int = 0) -> np.ndarray:
    """Planted synthetic binary data (sosproj.data.synthetic.planted_binary, 4 clusters, fixed data seed)."""
    from sosproj.data.synthetic import planted_binary

    return planted_binary(m, n, n_clusters=4, rng=seed).astype(np.int64)


def load(name: str) -> tuple[np.ndarray, list[str], list[int]]:
    """``nltcs`` / ``titanic`` / ``adult`` or ``planted32`` / ``planted64``."""
    if name.startswith("planted"):
        n = int(name[len("planted"):])
        return planted(n), [f"a{i}" for i in range(n)], [2] * n
    return load_csv_domain(name)

"""Where adult's error sits: sosproj's releases against AIM's synthetic data of the same seed (issue 14, session 38,
lead; diagnosis only, nothing is fitted on it).

The AIM run is dpmm 0.1.9's (``benchmarks/runtime_vs_pgm.py --peer-impl dpmm --keep-synth DIR``, which stores the
synthetic records as ``DIR/aim_dpmm_<data>_<eps>_<seed>.npz``; AIM's noise is not seedable, so a re-run gives another
draw). For the default and ``selection="pairs"``, under replace-one and add/remove (AIM's adjacency), it prints L1 / m
per order: the 1-way tables, the 2-way tables split by whether the release measured the pair, and the 3-way tables
split by how many of their pairs the release skipped and by whether it measured their own residual, each beside AIM's
error on the same tables.

Usage: PYTHONPATH=. python benchmarks/lead38_adult_diag.py EPS SEED AIM_NPZ [DATASET]
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from peers.data import load  # noqa: E402

import sosproj as sp  # noqa: E402


def table(R: np.ndarray, A: tuple[int, ...], sizes: list[int]) -> np.ndarray:
    shape = tuple(sizes[a] for a in A)
    idx = np.ravel_multi_index(tuple(R[:, a] for a in A), shape)
    return np.bincount(idx, minlength=int(np.prod(shape))).reshape(shape).astype(float)


def report(key: str, rel, X: np.ndarray, S: np.ndarray, names: list[str], sizes: list[int]) -> None:
    m, d = X.shape[0], len(sizes)
    un = set(map(tuple, rel.info["unmeasured_sets"]))

    def err(A):
        return np.abs(rel.table(A) - table(X, A, sizes)).sum() / m

    def aerr(A):
        return np.abs(table(S, A, sizes) * m / S.shape[0] - table(X, A, sizes)).sum() / m

    pairs = list(itertools.combinations(range(d), 2))
    triples = list(itertools.combinations(range(d), 3))
    print(f"== {key}: skipped pairs {sum(1 for A in pairs if A in un)}/{len(pairs)}, "
          f"measured triples {sum(1 for W in triples if W not in un)}/{len(triples)}")
    o1, a1 = [err((i,)) for i in range(d)], [aerr((i,)) for i in range(d)]
    print(f"1-way mean           ours {np.mean(o1):.4f} aim {np.mean(a1):.4f}")
    for i in np.argsort(o1)[::-1][:4]:
        print(f"   {names[i]:<16} size {sizes[i]:2d} ours {o1[i]:.4f} aim {a1[i]:.4f}")
    for lab, skipped in (("measured", False), ("skipped", True)):
        P = [A for A in pairs if (A in un) == skipped]
        if P:
            print(f"2-way {lab:<8} ({len(P):3d}) ours {np.mean([err(A) for A in P]):.4f} "
                  f"aim {np.mean([aerr(A) for A in P]):.4f}")
    for ns in range(4):
        T = [W for W in triples if sum(1 for A in itertools.combinations(W, 2) if A in un) == ns]
        if T:
            print(f"3-way, {ns} pairs skipped ({len(T):3d}) ours {np.mean([err(W) for W in T]):.4f} "
                  f"aim {np.mean([aerr(W) for W in T]):.4f}")
    for lab, skipped in (("residual measured", False), ("residual skipped", True)):
        T = [W for W in triples if (W in un) == skipped]
        if T:
            print(f"3-way, {lab} ({len(T):3d}) ours {np.mean([err(W) for W in T]):.4f} "
                  f"aim {np.mean([aerr(W) for W in T]):.4f}")
    print(f"3-way all ({len(triples)}) ours {np.mean([err(W) for W in triples]):.4f} "
          f"aim {np.mean([aerr(W) for W in triples]):.4f}")


def main() -> None:
    eps, seed, npz = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    name = sys.argv[4] if len(sys.argv) > 4 else "adult"
    X, names, sizes = load(name)
    ds = sp.load_dataset(name)
    S = np.load(npz)["synth"]
    ar = {"adjacency": "add-remove", "public_m": ds.m}
    kw = {"epsilon": eps, "delta": 1e-9, "rng": seed}
    print(f"{name} epsilon {eps} seed {seed}, AIM synthetic data {Path(npz).name}")
    for key, extra in (("default", {}), ("selection=pairs", {"selection": "pairs"}),
                       ("default, add/remove", ar), ("selection=pairs, add/remove", {"selection": "pairs", **ar})):
        report(key, sp.release_marginals(ds, 3, **kw, **extra), X, S, list(names), list(sizes))


if __name__ == "__main__":
    main()

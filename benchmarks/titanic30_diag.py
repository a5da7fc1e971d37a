"""Where the error of a titanic release sits (issue 14, session 30; evaluation only, nothing is tuned on it).

For the default release (seeds given) and for peers' synthetic data (npz files written by
``runtime_vs_pgm.py --keep-synth``) prints the L1 / m of the 1-way, 2-way and 3-way marginals, the 3-way
marginals split by whether they contain the 91-value attribute (Age) and the 32-value one (Fare), and the
per-attribute 1-way errors and the per-pair 2-way errors.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/titanic30_diag.py --eps 0.3 --seeds 0 1 2 3 4 \\
           --synth benchmarks/results_peers/titanic30/synth/aim_titanic_0.3_*.npz
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

import sosproj as sp
from sosproj.mechanisms.marginals_pipeline import release


def marg(X: np.ndarray, sizes: list[int], A: tuple[int, ...]) -> np.ndarray:
    idx = np.ravel_multi_index(tuple(X[:, a] for a in A), tuple(sizes[a] for a in A))
    return np.bincount(idx, minlength=int(np.prod([sizes[a] for a in A]))).reshape([sizes[a] for a in A])


def report(label: str, tab, truth: dict, m: int, names: list[str], big: list[int]) -> dict:
    errs = {A: float(np.abs(tab(A) - t).sum()) / m for A, t in truth.items()}
    out = {}
    for k in (1, 2, 3):
        out[f"L1_{k}way"] = np.mean([e for A, e in errs.items() if len(A) == k])
    t3 = [A for A in errs if len(A) == 3]
    for b in big:
        out[f"3way_with_{names[b]}"] = np.mean([errs[A] for A in t3 if b in A])
        out[f"3way_without_{names[b]}"] = np.mean([errs[A] for A in t3 if b not in A])
    out["3way_without_both"] = np.mean([errs[A] for A in t3 if not set(big) & set(A)])
    print(label, " ".join(f"{k}={v:.4f}" for k, v in out.items()))
    print("   1-way:", " ".join(f"{names[A[0]]}={errs[A]:.3f}" for A in errs if len(A) == 1))
    return {**out, "errs": errs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--eps", type=float, default=0.3)
    ap.add_argument("--seeds", type=int, nargs="*", default=[0])
    ap.add_argument("--synth", nargs="*", default=[])
    args = ap.parse_args()
    ds = sp.load_dataset("titanic")
    names = list(ds.domain.names)
    sizes = list(ds.domain.sizes)
    X = ds.records if hasattr(ds, "records") else ds.data
    big = [i for i, s in enumerate(sizes) if s >= 30]
    sets = [A for k in (1, 2, 3) for A in itertools.combinations(range(ds.n), k)]
    truth = {A: marg(X, sizes, A) for A in sets}
    pair_rows = {}
    for seed in args.seeds:
        rel = release(ds, 3, epsilon=args.eps, delta=1e-9, rng=1000 + seed)
        r = report(f"default seed={seed}", lambda A, rel=rel: rel.table(A), truth, ds.m, names, big)
        pair_rows[f"default{seed}"] = r["errs"]
    for f in args.synth:
        Y = np.load(f)["synth"]
        r = report(Path(f).stem, lambda A, Y=Y: marg(Y, sizes, A), truth, ds.m, names, big)
        pair_rows[Path(f).stem] = r["errs"]
    pairs = [A for A in sets if len(A) == 2]
    print("2-way L1/m per pair (columns: " + " ".join(pair_rows) + ")")
    for A in pairs:
        print(f"  {names[A[0]]}x{names[A[1]]} ({sizes[A[0]]}x{sizes[A[1]]}) "
              + " ".join(f"{pair_rows[k][A]:.3f}" for k in pair_rows))


if __name__ == "__main__":
    main()

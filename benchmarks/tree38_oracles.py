"""Stage 1 of the tree prior (issue 14, session 38): the noise-free lever on adult (DIAGNOSIS only, as
``adult36_oracles.py``; nothing is fitted or chosen here).

Measured family = the true 1-way tables + the true tables of the top-K dependent pairs (Frobenius distance from the
product of the margins, as ``adult36_oracles.py``); every 3-way table not measured is extrapolated by
:func:`~sosproj.mechanisms.extrapolation.extrapolate_unmeasured` with the uniform start (the default) or the tree
prior (``tree``: every W with an unmeasured subset; ``tree-pairs``: only the W containing an unmeasured pair).
No noise, no projection (the extrapolated tables are printed as IPF gives them). Metric: mean over the 455 3-way
marginals of L1(true, extrapolated) / m.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/tree38_oracles.py [--data adult] [--ks 10 20 40]
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout
from sosproj.mechanisms.extrapolation import extrapolate_unmeasured


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="adult")
    ap.add_argument("--ks", type=int, nargs="+", default=[10, 20, 40])
    args = ap.parse_args()
    ds = sp.load_dataset(args.data)
    m, n = ds.m, ds.n
    triples = list(itertools.combinations(range(n), 3))
    truth = {w: ds.marginal(w).astype(float) for w in triples}
    lay = ResidualLayout(ds.domain.sizes, triples)
    pairs = list(itertools.combinations(range(n), 2))
    frob = {}
    for a, b in pairs:
        T = ds.marginal((a, b)).astype(float)
        frob[(a, b)] = float(np.linalg.norm(T - np.outer(T.sum(1), T.sum(0)) / m))
    ranked = sorted(pairs, key=lambda p: -frob[p])
    r_true = lay.residuals_of_tables([truth[w] for w in lay.workload])
    print(f"{args.data}: m={m}, n={n}, 3-way tables {len(triples)}")
    for K in args.ks:
        measured = [(), *[(i,) for i in range(n)], *ranked[:K]]
        tabs = {A: ds.marginal(A).astype(float) for A in measured if A and not any(
            set(A) < set(B) for B in measured)}
        r = r_true.copy()                # extrapolate_unmeasured overwrites every unmeasured set
        row = []
        for prior in ("uniform", "tree", "tree-pairs"):
            out, info = extrapolate_unmeasured(lay, r, measured, tabs, prior=prior)
            e = float(np.mean([np.abs(lay.marginal(out, w) - truth[w]).sum() for w in triples]) / m)
            neg = min(float(lay.marginal(out, w).min()) for w in triples) / m
            row.append((prior, e, neg, info.get("tree_prior")))
        base = row[0][1]
        print(f"1-way + top-{K} pairs: " + "; ".join(
            f"{p} {e:.4f} (ratio {e / base:.3f}, min cell {ng:.2e} m{'' if tp is None else ', ' + str(tp)})"
            for p, e, ng, tp in row), flush=True)


if __name__ == "__main__":
    main()

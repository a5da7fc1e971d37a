"""Diagnosis of the default release on adult (issue 14, session 36): where its error sits and what a perfect
(oracle, non-private) choice of the measured pairs / triples would buy. Evaluation data used for DIAGNOSIS ONLY:
nothing here is fitted or chosen from it.

Printed, at epsilon 0.3 and 1 (seed 0, ``rng=0`` as the dpmm35 rows, delta 1e-9), metric = mean over the 455
3-way marginals of L1(true, released) / m:

* the default's error, its measured sets by order, and its L1 split by attribute (mean L1 / m of the tables
  containing the attribute) and its worst tables;
* noise-free oracles (true tables, no privacy): (a) the product of the true 1-way marginals; (b) true 1-way + the
  true 2-way tables of the top-K pairs by dependence (Frobenius distance of the pair table from the product of its
  margins, :math:`\\lVert T_{ab} - T_a T_b^T/m\\rVert_F`), every 3-way table the maximum-entropy (IPF,
  :func:`~sosproj.mechanisms.extrapolation.ipf_table`) table of the true measured margins inside it; (c) (b) plus
  the true tables of the top-J triples (by the L1 gap between the true triple and its pairs' IPF);
* (d) the default's measurement restricted to the oracle's top-K pairs (noise on, same total budget): the
  pipeline's ``noise_scales`` with the other pairs (and their supersets) dropped and the top-K kept; the skip rule
  decides the rest as usual.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/adult36_oracles.py [--eps 0.3 1] [--ks 5 10 20 40]
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter

import numpy as np

import sosproj as sp
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.mechanisms.extrapolation import ipf_table


def l1s(rel_tables: dict, truth: dict, m: int) -> dict:
    return {w: float(np.abs(rel_tables[w] - t).sum()) / m for w, t in truth.items()}


def oracle_tables(ds, truth3: dict, measured: list[tuple[int, ...]]) -> dict:
    """Per 3-way set W: the IPF table of the true margins of the maximal measured sets inside W."""
    mset = [set(A) for A in measured]
    out = {}
    for W in truth3:
        inside = [A for A, a in zip(measured, mset, strict=True) if a <= set(W)]
        top = [A for A in inside if not any(set(A) < set(B) for B in inside)]
        margins = {tuple(W.index(x) for x in A): ds.marginal(A) for A in top}
        out[W] = truth3[W] if tuple(W) in measured else ipf_table(truth3[W].shape, margins, float(ds.m))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.3, 1.0])
    ap.add_argument("--ks", type=int, nargs="+", default=[5, 10, 20, 40])
    ap.add_argument("--triples", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    ds = sp.load_dataset("adult")
    m, n, names = ds.m, ds.n, ds.domain.names
    truth3 = {w: ds.marginal(w) for w in itertools.combinations(range(n), 3)}
    ones = [(i,) for i in range(n)]
    pairs = list(itertools.combinations(range(n), 2))
    frob = {}
    for a, b in pairs:
        T = ds.marginal((a, b)).astype(float)
        frob[(a, b)] = float(np.linalg.norm(T - np.outer(T.sum(1), T.sum(0)) / m))
    ranked = sorted(pairs, key=lambda p: -frob[p])
    print("pair dependence (Frobenius distance from the product of the margins), top 20:")
    for p in ranked[:20]:
        print(f"  {names[p[0]]:>15s} x {names[p[1]]:<15s} {frob[p]:10.1f}  ({frob[p] / m:.4f} m)")

    def mean(d: dict) -> float:
        return float(np.mean(list(d.values())))

    print("\n== noise-free oracles (true tables, max-entropy extrapolation of the rest)")
    base = l1s(oracle_tables(ds, truth3, ones), truth3, m)
    print(f"(a) product of the true 1-way marginals: {mean(base):.4f}")
    for K in [*args.ks, len(pairs)]:
        meas = ones + ranked[:K]
        print(f"(b) 1-way + top-{K} pairs: {mean(l1s(oracle_tables(ds, truth3, meas), truth3, m)):.4f}")
    for K in args.ks:
        meas = ones + ranked[:K]
        pair_ipf = oracle_tables(ds, truth3, ones + pairs)
        gap = {W: float(np.abs(pair_ipf[W] - truth3[W]).sum()) for W in truth3}
        kept = set(ranked[:K])
        inside = [W for W in truth3 if all(p in kept for p in itertools.combinations(W, 2))]
        inside.sort(key=lambda W: -gap[W])
        for J in args.triples:
            if J > len(inside):
                continue
            e = mean(l1s(oracle_tables(ds, truth3, meas + inside[:J]), truth3, m))
            print(f"(c) 1-way + top-{K} pairs + top-{J} triples inside them (of {len(inside)}): {e:.4f}")
    allp = oracle_tables(ds, truth3, ones + pairs)
    gap = sorted(truth3, key=lambda W: -float(np.abs(allp[W] - truth3[W]).sum()))
    for J in args.triples:
        e = mean(l1s(oracle_tables(ds, truth3, ones + pairs + gap[:J]), truth3, m))
        print(f"(c') 1-way + all pairs + top-{J} triples (any): {e:.4f}")

    orig = mp.noise_scales
    for eps in args.eps:
        print(f"\n== epsilon {eps:g}, seed {args.seed} (rng={args.seed}), noise on")
        rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=args.seed)
        err = l1s({w: rel.table(w) for w in truth3}, truth3, m)
        un = Counter(len(A) for A in rel.info["unmeasured_sets"])
        tot = Counter(len(A) for A in rel.layout.residual_sets if A) if hasattr(rel, "layout") else Counter(
            {1: n, 2: len(pairs), 3: len(truth3)})
        print(f"default: {mean(err):.4f}; measured sets by order: "
              + ", ".join(f"{k}-way {tot[k] - un.get(k, 0)}/{tot[k]}" for k in (1, 2, 3)))
        per_attr = {i: np.mean([e for w, e in err.items() if i in w]) for i in range(n)}
        print("  L1/m by attribute (mean over the 91 tables containing it):")
        for i in sorted(per_attr, key=lambda i: -per_attr[i]):
            print(f"    {names[i]:>15s} (size {ds.domain.sizes[i]:2d}): {per_attr[i]:.4f}")
        print("  worst 10 tables:", ", ".join(f"{'/'.join(names[x][:6] for x in w)} {e:.3f}"
                                            for w, e in sorted(err.items(), key=lambda t: -t[1])[:10]))
        for K in args.ks:
            top = ranked[:K]
            rest = [p for p in pairs if p not in top]

            def restricted(*a, _top=top, _rest=rest, **kw):
                kw["keep_sets"] = list(kw.get("keep_sets", ())) + list(_top)
                kw["drop_sets"] = list(kw.get("drop_sets", ())) + list(_rest)
                return orig(*a, **kw)

            mp.noise_scales = restricted
            try:
                relk = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=args.seed)
            finally:
                mp.noise_scales = orig
            ek = mean(l1s({w: relk.table(w) for w in truth3}, truth3, m))
            un = Counter(len(A) for A in relk.info["unmeasured_sets"])
            print(f"(d) default measurement restricted to the top-{K} pairs: {ek:.4f} (ratio {ek / mean(err):.3f});"
                  f" measured 2-way {len(pairs) - un.get(2, 0)}, 3-way {len(truth3) - un.get(3, 0)}")


if __name__ == "__main__":
    main()

"""Benchmark: building moment relaxations (sosproj.poly) vs a per-entry Python-loop baseline.

Prints, per system, the median build time of ``MomentRelaxation`` (vectorized: exponent-pair
sums via linear keys, one normal form per distinct monomial, sparse assembly) and of a
straightforward baseline measured in the same run (Python loop over every matrix entry, normal
forms cached per monomial, COO assembly), their ratio, and the general Groebner route vs the
closed-form reduction. Also prints the size/memory estimate of the paper's P_t at n = 12,
degree 8 (k = 3, degree 4k - 4) and whether it would be built.

Usage: python benchmarks/poly_build.py [--repeats 5] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

from sosproj.errors import ResourceLimitError
from sosproj.poly import MomentRelaxation, PolySystem, boolean_cube, sparse_ball, sphere, unit_ball
from sosproj.validation import available_memory_bytes, format_bytes


def naive_build(system: PolySystem, degree: int) -> list[sp.csr_matrix]:
    """Per-entry baseline: loops over all (i, j) pairs of every block in Python."""
    red = system.reduction
    mons = red.standard_monomials(degree)
    index = {tuple(r): i for i, r in enumerate(mons.tolist())}
    deg = mons.sum(axis=1)
    cache: dict[tuple[int, ...], list[tuple[int, float]]] = {}

    def nf(m: tuple[int, ...]) -> list[tuple[int, float]]:
        hit = cache.get(m)
        if hit is None:
            _, out, coef = red.reduce_rows(np.array([m]))
            hit = [(index[tuple(e)], float(c)) for e, c in zip(out.tolist(), coef)]
            cache[m] = hit
        return hit

    one = [((0,) * system.n_vars, 1.0)]
    polys = [one] + [[(tuple(e), float(c)) for e, c in zip(g.exps.tolist(), g.float_coeffs())]
                     for g in system.inequalities if g.degree <= degree]
    gdeg = [0] + [g.degree for g in system.inequalities if g.degree <= degree]
    out = []
    for terms, dg in zip(polys, gdeg):
        basis = mons[deg <= (degree - dg) // 2].tolist()
        N = len(basis)
        rows, cols, vals = [], [], []
        for i in range(N):
            for j in range(N):
                for te, tc in terms:
                    m = tuple(a + b + c for a, b, c in zip(basis[i], basis[j], te))
                    for col, c in nf(m):
                        rows.append(i * N + j)
                        cols.append(col)
                        vals.append(tc * c)
        out.append(sp.csr_matrix((vals, (rows, cols)), shape=(N * N, len(mons))))
    return out


def groebner_twin(S: PolySystem) -> PolySystem:
    return PolySystem(S.var_names, S.equalities, S.inequalities, tensor_vars=S.tensor_vars,
                      ranking=S.ranking, inequality_names=S.inequality_names)


def median_time(fn, repeats: int) -> float:
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smaller cases only")
    ap.add_argument("--max-build-bytes", type=float, default=2 * 2**30,
                    help="do not build P_t cases estimated above this (they are only sized)")
    args = ap.parse_args()
    r = args.repeats
    cases = [("unit_ball(10)", lambda: unit_ball(10), 4, True),
             ("unit_ball(20)", lambda: unit_ball(20), 4, True),
             ("unit_ball(30)", lambda: unit_ball(30), 4, True),
             ("boolean_cube(30)", lambda: boolean_cube(30), 4, True),
             ("boolean_cube(12)", lambda: boolean_cube(12), 6, True),
             ("sphere(10)", lambda: sphere(10), 4, True),
             ("sparse_ball(4, 2)", lambda: sparse_ball(4, 2), 6, True),
             ("sparse_ball(4, 2)", lambda: sparse_ball(4, 2), 8, False),
             ("sparse_ball(5, 2)", lambda: sparse_ball(5, 2), 8, False)]
    if args.quick:
        cases = cases[:3]
    print("| system | degree | n_moments | block orders (first 3) | nnz | build median (s) "
          "| per-entry loop median (s) | loop / build |")
    print("|---|---|---|---|---|---|---|---|")
    for name, make, D, do_naive in cases:
        S = make()
        _ = S.reduction
        R = MomentRelaxation(S, D)
        t_fast = median_time(lambda S=S, D=D: MomentRelaxation(S, D), r)
        nnz = sum(b.A.nnz for b in R.psd_blocks)
        if do_naive:
            t_naive = median_time(lambda S=S, D=D: naive_build(S, D), max(1, min(r, 3)))
            naive_s, ratio = f"{t_naive:.3f}", f"{t_naive / t_fast:.1f}x"
        else:
            naive_s, ratio = "not run", "-"
        print(f"| {name} | {D} | {R.n_moments} | {R.block_orders[:3]} | {nnz} | {t_fast:.3f} | "
              f"{naive_s} | {ratio} |")

    print()
    print("| system | degree | closed-form build median (s) | Groebner-route build median (s) | ratio |")
    print("|---|---|---|---|---|")
    for name, make, D in [("boolean_cube(8)", lambda: boolean_cube(8), 4),
                          ("sparse_ball(3, 2)", lambda: sparse_ball(3, 2), 6)]:
        S = make()
        t_fast = median_time(lambda S=S, D=D: MomentRelaxation(S, D), r)
        # a fresh twin per repeat: the Groebner basis and the normal-form memo are rebuilt each time
        t_gb = median_time(lambda S=S, D=D: MomentRelaxation(groebner_twin(S), D), max(1, min(r, 3)))
        print(f"| {name} | {D} | {t_fast:.3f} | {t_gb:.3f} | {t_gb / t_fast:.1f}x |")

    print()
    budget = 0.6 * available_memory_bytes()
    for n, t, D in [(12, 3, 8), (8, 3, 8), (12, 3, 6), (12, 3, 4)]:
        est = MomentRelaxation.estimate(sparse_ball(n, t), D)
        if est["bytes"] > args.max_build_bytes and est["bytes"] <= budget:
            verdict = f"within the budget; not built here (over --max-build-bytes {args.max_build_bytes:g})"
        else:
            try:
                t0 = time.perf_counter()
                MomentRelaxation(sparse_ball(n, t), D)
                verdict = f"built in {time.perf_counter() - t0:.2f} s"
            except ResourceLimitError as exc:
                verdict = f"refused before building (ResourceLimitError, estimate {format_bytes(exc.estimate_bytes)})"
        print(f"sparse_ball(n={n}, t={t}) degree {D}: n_moments={est['n_moments']}, moment matrix order "
              f"{est['block_orders'][0]}, {len(est['block_orders']) - 1} localizing blocks of order "
              f"{est['block_orders'][1]}, nnz={est['nnz']}, estimated memory {est['bytes_text']} "
              f"(budget {format_bytes(budget)}): {verdict}")

if __name__ == "__main__":
    main()

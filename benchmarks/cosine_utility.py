"""Benchmark: utility of private cosine similarities.

epsilon = 1, delta = 1e-6, sensitivity = 1 (analytic calibration). For each n,
random unit vectors of dimension ``--dim`` (20; 0 means n), several seeds: mean squared Frobenius error
``||X_hat - U U^T||_F^2`` of the methods ``exact`` (Algorithm 3, Newton),
``alternating`` (Algorithm 4, errata fixed) and ``gaussian`` (symmetrized Gaussian
mechanism), all on the same noise draw per seed; then the fitted log-log slope in n
and, beside them, the bounds: the stability bound ``sigma * 2 n^1.5`` (constant 1,
``G(S) <= n * E||W||_op <= 2 n^1.5``), the paper's statement
``8 sqrt(log(2/delta)) / (3 eps) * Delta * 2 n^1.5`` and the Gaussian mechanism's
expectation ``sigma^2 n (n + 1) / 2``.

Usage::

    python benchmarks/cosine_utility.py --sizes 100 200 400 700 1000 1500 2000 --seeds 3
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from sosproj.mechanisms.cosine import release_cosine_similarities

EPS, DELTA, SENS = 1.0, 1e-6, 1.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400, 700, 1000, 1500, 2000])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--large-seeds", type=int, default=2, help="seeds for n > 1000")
    ap.add_argument("--dim", type=int, default=20, help="vector dimension m; 0 means m = n")
    ap.add_argument("--methods", nargs="+", default=["exact", "alternating", "gaussian"])
    args = ap.parse_args()
    results: dict[str, list[float]] = {m: [] for m in args.methods}
    sigma = None
    print(f"{'n':>5s} " + " ".join(f"{m + ' err':>16s}" for m in args.methods)
          + f" {'exact/gauss':>11s} {'2 sig n^1.5':>12s} {'paper bound':>12s} {'sig^2n(n+1)/2':>14s} {'time s':>7s}")
    for n in args.sizes:
        seeds = args.seeds if n <= 1000 else args.large_seeds
        errs: dict[str, list[float]] = {m: [] for m in args.methods}
        t0 = time.perf_counter()
        for s in range(seeds):
            rng = np.random.default_rng([n, s])
            V = rng.standard_normal((n, args.dim if args.dim > 0 else n))
            U = V / np.linalg.norm(V, axis=1, keepdims=True)
            A = U @ U.T
            for m in args.methods:
                rel = release_cosine_similarities(V, epsilon=EPS, delta=DELTA, sensitivity=SENS, method=m,
                                                  rng=np.random.default_rng([n, s, 7]))
                sigma = rel.sigma
                errs[m].append(float(np.sum((rel.value - A) ** 2)))
        for m in args.methods:
            results[m].append(float(np.mean(errs[m])))
        stab = sigma * 2 * n**1.5
        paper = 8 * math.sqrt(math.log(2 / DELTA)) / (3 * EPS) * SENS * 2 * n**1.5
        gauss_exp = sigma**2 * n * (n + 1) / 2
        ratio = (np.mean(errs["exact"]) / np.mean(errs["gaussian"])
                 if "exact" in errs and "gaussian" in errs else float("nan"))
        print(f"{n:5d} " + " ".join(f"{np.mean(errs[m]):16.4e}" for m in args.methods)
              + f" {ratio:11.4f} {stab:12.4e} {paper:12.4e} {gauss_exp:14.4e} {time.perf_counter() - t0:7.1f}",
              flush=True)
    logn = np.log(np.asarray(args.sizes, dtype=float))
    print(f"sigma = {sigma:.4f} (epsilon={EPS}, delta={DELTA}, sensitivity={SENS}, analytic)")
    for m in args.methods:
        slope = np.polyfit(logn, np.log(results[m]), 1)[0]
        print(f"fitted log-log slope, {m:12s}: {slope:.3f}")


if __name__ == "__main__":
    main()

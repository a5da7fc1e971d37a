"""Allocation study for the "auto" rule of sosproj.mechanisms.marginals_pipeline (synthetic data only).

For synthetic datasets of several shapes (binary and categorical; latent-class mixtures, i.e.
correlated attributes), releases all 3-way marginals with the "auto" allocation at a grid of
mixing weights t (t = 0: ResidualPlanner's optimum, t = 1: equal-noise tables) and records the
error (L1 per marginal / m) of the default reconstruction, with the public SNR
m * epsilon / sqrt(#cells of the workload). The rule t = auto_mix(snr) is fitted to the best t
per (shape, epsilon) in docs/bench_allocation.md. Never run on nltcs/adult/titanic.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/allocation_study.py 1 > benchmarks/results_allocation/raw.txt
       OPENBLAS_NUM_THREADS=1 python benchmarks/allocation_study.py 2 auto cat8x5 --eps 0.03 0.1 0.3 1 3 10 \
           > benchmarks/results_allocation/raw_onehot_cat8x5.txt
       OPENBLAS_NUM_THREADS=1 python benchmarks/allocation_study.py 1 auto binary \
           > benchmarks/results_allocation/raw_binary_cube.txt
(second form: the default reconstruction, which is the Boolean-cube projection + LNN on binary data,
on the binary shapes only; third form: the default reconstruction of categorical data, LNN + the
one-hot degree-2 PSD, on one shape, at the epsilons given, ``--seed0`` the first seed).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from sosproj.data.domain import Dataset, Domain
from sosproj.mechanisms.marginals_pipeline import release

SHAPES = {
    # name: (sizes, m)
    "binary12-m2k": ([2] * 12, 2000),
    "binary12-m20k": ([2] * 12, 20000),
    "binary16-m5k": ([2] * 16, 5000),
    "cat8-m2k": ([2, 3, 5, 8, 12, 4, 16, 6], 2000),
    "cat8-m30k": ([2, 3, 5, 8, 12, 4, 16, 6], 30000),
    "cat6-wide-m5k": ([30, 20, 2, 10, 25, 3], 5000),
    # small m, low public SNR (down to ~1e-3): the regime of the one-hot PSD reconstruction
    "cat8x5-m500": ([5] * 8, 500),
    "cat10-m300": ([3, 4, 2, 6, 5, 3, 7, 2, 4, 8], 300),
    "cat9-wide-m1k": ([2, 4, 3, 60, 8, 6, 25, 3, 10], 1000),
    "cat6-wide-m2k": ([40, 30, 2, 3, 12, 20], 2000),
    # the LNN re-fit of the categorical rule (lnnfit_study.sh): sizes like titanic's (2-91 values) and
    # adult's (2-42), m from 1e3 to 5e4; "-skew": Dirichlet(0.1) conditionals over 8 classes (skewed,
    # clustered: most cells empty), else Dirichlet(0.5) over 4 classes
    "tit6-m1k": ([3, 2, 91, 9, 32, 3], 1000),
    "tit6-skew-m1k": ([3, 2, 91, 9, 32, 3], 1000, 0.1, 8),
    "tit6-m5k": ([3, 2, 91, 9, 32, 3], 5000),
    "adl7-m10k": ([9, 16, 7, 6, 2, 42, 15], 10000),
    "adl7-skew-m50k": ([9, 16, 7, 6, 2, 42, 15], 50000, 0.1, 8),
    # nine attributes of Titanic's (public) domain sizes: does the number of attributes move the fall-off?
    "tit9-skew-m1k": ([3, 3, 2, 91, 9, 7, 32, 3, 9], 1300, 0.1, 8),
    "tit9-m1k": ([3, 3, 2, 91, 9, 7, 32, 3, 9], 1300),
}
EPS = (0.1, 0.3, 1.0, 3.0, 10.0)
#: Reconstruction used in the study (the projection onto locally non-negative consistent tables).
RECON = "lnn"
MIX = (0.0, 0.5, 1.0, 1.5, 2.0)


def latent_class(sizes: list[int], m: int, classes: int, rng: np.random.Generator, alpha: float = 0.5) -> Dataset:
    """Records from a mixture of product distributions (Dirichlet(alpha) per class and attribute; a small
    ``alpha`` gives skewed attributes and many empty cells)."""
    z = rng.integers(0, classes, size=m)
    cols = []
    for s in sizes:
        probs = rng.dirichlet(np.full(s, alpha), size=classes)
        u = rng.random(m)
        cols.append((u[:, None] > np.cumsum(probs[z], axis=1)).sum(axis=1).clip(0, s - 1))
    return Dataset(np.stack(cols, axis=1), Domain.from_sizes(sizes))


def shape_data(name: str) -> Dataset:
    """The synthetic dataset of a study shape: ``SHAPES[name] = (sizes, m[, alpha, classes])`` (default
    Dirichlet(0.5) conditionals over 4 latent classes), drawn with the study's fixed seed 12345."""
    sizes, m, *gen = SHAPES[name]
    alpha, classes = gen if gen else (0.5, 4)
    return latent_class(sizes, m, classes, np.random.default_rng(12345), alpha=alpha)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seeds", type=int, nargs="?", default=2)
    ap.add_argument("recon", nargs="?", default=RECON)
    ap.add_argument("only", nargs="?", default="", help="shape-name prefix")
    ap.add_argument("--eps", type=float, nargs="+", default=list(EPS))
    ap.add_argument("--mix", type=float, nargs="+", default=list(MIX))
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("--max-iter", type=int, default=None,
                    help="the projections' iteration cap (default: the library's)")
    ap.add_argument("--rho0-factor", type=float, default=None,
                    help="the ADMM's initial-penalty factor (sosproj.sdp.marginal_admm.RHO0_FACTOR; 1 = before v5)")
    args = ap.parse_args()
    opts = {"on_fail": "return"} | ({"max_iter": args.max_iter} if args.max_iter else {})
    if args.rho0_factor is not None:
        from sosproj.sdp import marginal_admm

        marginal_admm.RHO0_FACTOR = args.rho0_factor
    recon, only = args.recon, args.only
    print("shape eps mix snr seed err time_s", flush=True)
    for name in SHAPES:
        if only and not name.startswith(only):
            continue
        ds = shape_data(name)
        sets = list(itertools.combinations(range(ds.n), 3))
        truth = {w: ds.marginal(w) for w in sets}
        for eps, seed, mix in itertools.product(args.eps, range(args.seed0, args.seed0 + args.seeds), args.mix):
            t0 = time.perf_counter()
            rel = release(ds, 3, epsilon=eps, delta=1e-9, allocation="auto", reconstruction=recon,
                          rng=1000 + seed, _mix=mix, options=dict(opts))
            dt = time.perf_counter() - t0
            err = float(np.mean([np.abs(rel.table(w) - truth[w]).sum() for w in sets]) / ds.m)
            print(f"{name} {eps:g} {mix:g} {rel.info['public_snr']:.4g} {seed} {err:.6f} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

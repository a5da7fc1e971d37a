"""The 1-way shrinkage's degrees-of-freedom offset on a FRESH held-out set D (issue 14, session 31, branch stein31).

``ONE_WAY_SHRINK_OFFSET = 2`` (the rule since pubrule31: positive-part James-Stein ``max(0, 1 - (q-2) sigma^2 /
||y||^2)`` for measured 1-way sets below the band with ``q = n_i - 1 >= 3``) against offset 0 (``max(0, 1 - q
sigma^2 / ||y||^2)`` for every such set with ``q >= 1``, the 2-3-value attributes included). Both with the default
rule (``AUTO_SKIP_SNR``, ``ONE_WAY_SHRINK = 1``), so both measure the same sets with the same noise scales; same
seed = the same noisy measurement (paired), the offset only changes the post-processing. A cell (shape, epsilon)
where no measured 1-way set is below the band (public: sizes, m, epsilon) gives identical releases and is not run.

Set D (defined at 20:23 UTC on 2026-11-27 and committed BEFORE any row was run): new sizes, m, alpha, classes and
a new data seed (``DATA_SEED``), none of them a shape of the earlier studies. Synthetic only; never titanic/adult.

Usage (from the worktree root): python benchmarks/results_catrule/stein31/stein_fresh.py --eps 0.1 0.3 1 3 \\
    --seeds 0 1 2 3 > benchmarks/results_catrule/stein31/raw_fresh.txt
Summary: python benchmarks/catrule_drop_summary.py RAW (first variant ``off2`` = the rule).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from allocation_study import latent_class  # noqa: E402
from catrule_study import score  # noqa: E402
from pubrule_study import public_sigmas  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

DATA_SEED = 20261127
#: name -> ("dir", sizes, m, alpha, classes) or ("geo", sizes, m, alpha, classes, decay) (the binned-numeric
#: shapes of ``select_study.GEO``: attributes with >= 7 values decay geometrically over their codes)
FRESH = {
    "d-small-m500": ("dir", [2, 3, 2, 5, 3, 4, 2, 6], 500, 0.5, 3),
    "d-mix-m900": ("dir", [3, 2, 11, 4, 2, 24, 3, 7, 5], 900, 0.7, 5),
    "d-flat-m700": ("dir", [2, 3, 3, 15, 6, 2, 9], 700, 1.5, 4),
    "d-a03-m2500": ("dir", [4, 2, 3, 30, 8, 3, 12, 2], 2500, 0.3, 6),
    "d-wide-m1200": ("dir", [2, 70, 3, 10, 5, 2, 18, 4, 3, 6], 1200, 0.5, 4),
    "g-m600": ("geo", [2, 3, 10, 2, 14, 3, 4, 8], 600, 0.5, 4, 0.85),
    "g-m1800": ("geo", [3, 2, 45, 3, 12, 2, 20, 5], 1800, 0.6, 5, 0.92),
    "g-m350": ("geo", [2, 2, 3, 8, 3, 9, 4], 350, 0.5, 3, 0.8),
    "g-m5k": ("geo", [8, 14, 6, 5, 2, 38, 12, 3, 2], 5000, 0.4, 5, 0.9),
    "g-a1-m1k": ("geo", [3, 3, 2, 60, 7, 4, 25, 2], 1000, 1.0, 4, 0.87),
}


def fresh_data(name: str) -> Dataset:
    """A set-D shape drawn with :data:`DATA_SEED` (the generators of ``allocation_study`` / ``select_study``)."""
    kind, sizes, m, alpha, classes, *decay = FRESH[name]
    rng = np.random.default_rng(DATA_SEED)
    if kind == "dir":
        return latent_class(sizes, m, classes, rng, alpha=alpha)
    z = rng.integers(0, classes, size=m)
    cols = []
    for s in sizes:
        probs = rng.dirichlet(np.full(s, alpha), size=classes)
        if s >= 7:
            probs = probs * decay[0] ** np.arange(s)[None, :]
            probs /= probs.sum(axis=1, keepdims=True)
        u = rng.random(m)
        cols.append((u[:, None] > np.cumsum(probs[z], axis=1)).sum(axis=1).clip(0, s - 1))
    return Dataset(np.stack(cols, axis=1), Domain.from_sizes(sizes))


def offset_acts(ds: Dataset, sig: np.ndarray) -> bool:
    """Whether offset 0 changes the release (public): some measured 1-way set below the band with ``q >= 1``."""
    layout = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    snr = mp.set_snr(layout, sig, ds.m)
    return any(len(A) == 1 and 0 < sig[i] < np.inf and snr[i] < mp.ONE_WAY_SHRINK_BAND
               and ds.domain.sizes[A[0]] >= 2 for i, A in enumerate(layout.residual_sets))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=list(FRESH), choices=list(FRESH))
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--old", action="store_true",
                    help="also run main e2c03a6's rule first (AUTO_SKIP_SNR = (5, 5, 8), no shrinkage; variant "
                         "``old``): the common baseline of pubrule31's worst-cell comparisons")
    args = ap.parse_args()
    variants = [("old", 2), ("off2", 2), ("off0", 0)] if args.old else [("off2", 2), ("off0", 0)]
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = fresh_data(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            if not offset_acts(ds, public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)):
                print(f"# {name} {eps:g}: no measured 1-way set below the band (identical releases)", flush=True)
                continue
            for seed in args.seeds:
                for var, off in variants:
                    mp.ONE_WAY_SHRINK_OFFSET = off
                    mp.ONE_WAY_SHRINK = 0.0 if var == "old" else 1.0
                    skip = (5.0, 5.0, 8.0) if var == "old" else None
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=skip,
                                     options={"on_fail": "return"})
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)
    mp.ONE_WAY_SHRINK_OFFSET, mp.ONE_WAY_SHRINK = 2, 1.0


if __name__ == "__main__":
    main()

"""The tree prior for the extrapolation of skipped sets (issue 14, session 38): paired rows, same seed (same noisy
measurement, same selection), only the extrapolation's IPF start differs (``options["extrapolation"]``:
``uniform`` = the current default, ``tree`` = the Chow-Liu prior for every W with an unmeasured subset,
``tree-pairs`` = the prior only for the W containing an unmeasured pair).

Metric: mean over all 3-way marginals of L1(true, released) / m; CPU seconds per release.

Synthetic shapes (``select_pairs_study``'s ``SHAPES`` / ``GEO`` / ``TREE``) use ``rng=1000 + seed`` as that study;
the evaluation datasets (``adult``, ``titanic``, ``nltcs``) use ``rng=seed`` as the dpmm35 rows.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/tree38_study.py --data adl15-tree-m5k adult --eps 0.3 1 3 \\
           --seeds 0 1 --selections none pairs --priors uniform tree tree-pairs
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from select_pairs_study import data_of  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

REAL = ("adult", "titanic", "nltcs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--selections", nargs="+", default=["none", "pairs"])
    ap.add_argument("--priors", nargs="+", default=["uniform", "tree", "tree-pairs"])
    args = ap.parse_args()
    print("data eps seed selection prior err cpu n_unmeasured_pairs tree_edges prior_sets", flush=True)
    for name in args.data:
        ds = sp.load_dataset(name) if name in REAL else data_of(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps, seed, sel in itertools.product(args.eps, args.seeds, args.selections):
            rng = seed if name in REAL else 1000 + seed
            for prior in args.priors:
                t0 = time.process_time()
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=rng, selection=sel,
                                 options={"extrapolation": prior})
                cpu = time.process_time() - t0
                e = float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m)
                ri = rel.info["reconstruction_info"]
                tp = ri.get("tree_prior") or {}
                nup = sum(1 for A in rel.info["unmeasured_sets"] if len(A) == 2)
                print(f"{name} {eps:g} {seed} {sel} {prior} {e:.6f} {cpu:.2f} {nup} {tp.get('edges', '-')} "
                      f"{tp.get('prior_sets', '-')}", flush=True)


if __name__ == "__main__":
    main()

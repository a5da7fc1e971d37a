"""The private pair selection (``selection="pairs"``, issue 14, session 36) on SYNTHETIC shapes: its constants
``(share, kappa, margin)`` are chosen here, never on the evaluation datasets.

Each row pairs a variant with the default release (share 0: the public rule alone) on the same data, epsilon and
seed (same seed = same standard normals of the measurement; the selection draws from its own spawned stream).
Metric: mean over all 3-way marginals of L1(true, released) / m.

Shapes: ``allocation_study.SHAPES`` (latent-class mixtures), ``select_study.GEO`` (binned-numeric mixtures), and
``TREE`` here: adult-like structured data (adult's 15 public sizes, ``m = 48842``), each attribute drawn given a
parent attribute of a random tree (Chow-Liu-like), the conditional a per-edge mixture ``(1 - w) base + w
Dirichlet(alpha)`` with ``w`` uniform in ``[w_lo, 1]``: a few strongly dependent pairs, many weak ones;
large attributes get a geometric decay (binned numerics).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select_pairs_study.py --shapes adl15-tree-m49k cat8-m30k \\
           --eps 0.3 1 3 --seeds 0 1 --variants 0.1:1:1 0.05:1:1
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import SHAPES, shape_data  # noqa: E402
from select_study import GEO, geo_data  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

ADULT_SIZES = [16, 32, 9, 32, 16, 7, 15, 6, 5, 2, 32, 32, 32, 42, 2]
#: name -> (sizes, m, alpha, w_lo, decay, generator seed)
TREE = {
    "adl15-tree-m49k": (ADULT_SIZES, 48842, 0.3, 0.2, 0.9, 12345),
    "adl15-treeweak-m49k": (ADULT_SIZES, 48842, 0.5, 0.0, 0.9, 12346),
    "adl15-tree-m5k": (ADULT_SIZES, 5000, 0.3, 0.2, 0.9, 12347),
    "tit9-tree-m1k": ([3, 3, 2, 91, 9, 7, 32, 3, 9], 1300, 0.3, 0.2, 0.9, 12348),
    # held out (drawn after the constants were chosen)
    "adl15-tree-m20k": (ADULT_SIZES, 20000, 0.4, 0.1, 0.85, 22345),
    "cat10-tree-m3k": ([3, 4, 2, 6, 5, 3, 7, 2, 4, 8], 3000, 0.3, 0.2, 0.9, 22346),
}


def tree_data(name: str) -> Dataset:
    """A ``TREE`` shape (module docstring), drawn with its fixed generator seed."""
    sizes, m, alpha, w_lo, decay, seed = TREE[name]
    rng = np.random.default_rng(seed)
    n = len(sizes)
    order = rng.permutation(n)

    def base(s: int) -> np.ndarray:
        p = rng.dirichlet(np.full(s, 1.0))
        if s >= 7:
            p = p * decay ** np.arange(s)
        return p / p.sum()

    cols: dict[int, np.ndarray] = {}
    for t, a in enumerate(order):
        s = sizes[a]
        if t == 0:
            cols[a] = rng.choice(s, size=m, p=base(s))
            continue
        par = int(order[rng.integers(0, t)])
        w = rng.uniform(w_lo, 1.0)
        cond = (1.0 - w) * base(s)[None, :] + w * rng.dirichlet(np.full(s, alpha), size=sizes[par])
        u = rng.random(m)
        cols[a] = (u[:, None] > np.cumsum(cond[cols[par]], axis=1)).sum(axis=1).clip(0, s - 1)
    return Dataset(np.stack([cols[a] for a in range(n)], axis=1), Domain.from_sizes(sizes))


def data_of(name: str) -> Dataset:
    if name in TREE:
        return tree_data(name)
    return geo_data(name) if name in GEO else shape_data(name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", required=True, choices=sorted(SHAPES) + sorted(GEO) + sorted(TREE))
    ap.add_argument("--eps", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--variants", nargs="+", required=True,
                    help="SHARE:KAPPA:MARGIN[:free][:gate] (free: the chosen pairs left to the skip rule, "
                         "SELECT_PAIRS_FORCE = False; gate: SELECT_PAIRS_NEED_RULE_PAIR = True)")
    args = ap.parse_args()
    variants = [v.split(":") for v in args.variants]
    print("shape eps seed variant err_default err ratio n_pairs n_cand cpu_default cpu", flush=True)
    for name in args.shapes:
        ds = data_of(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}

        def err(rel, truth=truth, m=ds.m) -> float:
            return float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / m)

        for eps, seed in itertools.product(args.eps, args.seeds):
            t0 = time.process_time()
            base = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed)
            c0 = time.process_time() - t0
            e0 = err(base)
            for v in variants:
                mp.SELECT_PAIRS_FORCE = "free" not in v[3:]
                mp.SELECT_PAIRS_NEED_RULE_PAIR = "gate" in v[3:]
                t0 = time.process_time()
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed,
                                 _select_pairs=tuple(float(x) for x in v[:3]))
                c1 = time.process_time() - t0
                ps = rel.info["pair_selection"]
                e1 = err(rel)
                npairs = "-" if ps is None else len(ps["selected"])
                ncand = "-" if ps is None else len(ps["candidates"])
                print(f"{name} {eps:g} {seed} {':'.join(v)} {e0:.5f} {e1:.5f} {e1 / e0:.4f} "
                      f"{npairs} {ncand} {c0:.2f} {c1:.2f}", flush=True)


if __name__ == "__main__":
    main()

"""The private 1-way selection of the categorical ``"auto"`` release (issue 14, session 30; synthetic data only).

``release(..., _select=(share, kappa, margin))`` (``marginals_pipeline.select_one_way``): when the public skip
rule leaves some 1-way sets unmeasured, a Gaussian mechanism with the share ``share`` of the squared budget
releases each such attribute's noisy L1 distance to the uniform table and measures the attribute after all when
it exceeds ``kappa`` times the expected error of its measured table plus ``margin`` times the
statistic's noise (``select_one_way_plan``). ``share = 0``: the default before it.
Same seed = same standard normals of the measurement (the selection draws from its own stream): paired.

Shapes: ``benchmarks/allocation_study.py``'s latent-class shapes and ``GEO`` here: the same mixtures whose
attributes with >= 7 values are "binned numerics" (each class's Dirichlet draw times a geometric decay
``r^k`` over the codes, renormalized: most records in the low codes, a long thin tail), a common feature of
real categorical sets that the Dirichlet shapes lack. Never titanic/adult/nltcs (``--dataset`` exists for the
single evaluation run, recorded separately).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select_study.py --shapes tit9-geo-m1k --eps 0.3 \\
           --variants 0:1 0.05:1 --seeds 0 1
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
from select_eval import plan_of  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms.marginals_pipeline import release  # noqa: E402

#: name -> (sizes, m, alpha, classes, decay)
GEO = {
    "tit9-geo-m1k": ([3, 3, 2, 91, 9, 7, 32, 3, 9], 1300, 0.5, 4, 0.85),
    "cat9-geo-m1k": ([2, 4, 3, 60, 8, 6, 25, 3, 10], 1000, 0.5, 4, 0.8),
    "tit9-geo2-m1k": ([3, 3, 2, 91, 9, 7, 32, 3, 9], 1300, 0.3, 6, 0.93),
    # held out
    "tit6-geo-m1k": ([3, 2, 91, 9, 32, 3], 1000, 0.3, 8, 0.9),
    "adl7-geo-m10k": ([9, 16, 7, 6, 2, 42, 15], 10000, 0.5, 4, 0.85),
    "cat6-geo-m2k": ([40, 30, 2, 3, 12, 20], 2000, 0.5, 4, 0.9),
    "cat10-geo-m300": ([3, 4, 2, 6, 5, 3, 7, 2, 4, 8], 300, 0.5, 4, 0.8),
}


def geo_data(name: str) -> Dataset:
    """A ``GEO`` shape, drawn with the study's fixed seed 12345."""
    sizes, m, alpha, classes, decay = GEO[name]
    rng = np.random.default_rng(12345)
    z = rng.integers(0, classes, size=m)
    cols = []
    for s in sizes:
        probs = rng.dirichlet(np.full(s, alpha), size=classes)
        if s >= 7:
            probs = probs * decay ** np.arange(s)[None, :]
            probs /= probs.sum(axis=1, keepdims=True)
        u = rng.random(m)
        cols.append((u[:, None] > np.cumsum(probs[z], axis=1)).sum(axis=1).clip(0, s - 1))
    return Dataset(np.stack(cols, axis=1), Domain.from_sizes(sizes))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[], choices=sorted(SHAPES) + sorted(GEO))
    ap.add_argument("--dataset", nargs="*", default=[], help="bundled evaluation datasets (evaluation only)")
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", required=True, help="SHARE:KAPPA[:MARGIN] (0:1 = without the selection)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    import sosproj as sp

    print("shape eps variant seed err candidates selected measured_1/2/3 converged cpu_s", flush=True)
    data = [(nm, geo_data(nm) if nm in GEO else shape_data(nm)) for nm in args.shapes]
    data += [(nm, sp.load_dataset(nm)) for nm in args.dataset]
    for name, ds in data:
        sets = list(itertools.combinations(range(ds.n), 3))
        truth = {w: ds.marginal(w) for w in sets}
        live = {}
        for eps in args.eps:       # public: does any variant test a set in this cell? (else all are identical)
            live[eps] = any(plan_of(ds, eps, tuple(float(x) for x in (v + ":0").split(":")[:3])) is not None
                            for v in args.variants if not v.startswith("0:"))
            if not live[eps]:
                print(f"{name} {eps:g} all - - identical (no 1-way set tested) - - -", flush=True)
        for eps, seed, var in itertools.product(args.eps, args.seeds, args.variants):
            if not live[eps]:
                continue
            share, kappa, margin = (float(x) for x in (var + ":0").split(":")[:3])
            t0 = time.process_time()
            rel = release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _select=(share, kappa, margin),
                          options={"on_fail": "return"})
            dt = time.process_time() - t0
            err = float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m)
            un = rel.info["unmeasured_sets"]
            total = {k: sum(1 for A in rel.layout.residual_sets if len(A) == k) for k in (1, 2, 3)}
            meas = "/".join(str(total[k] - sum(1 for A in un if len(A) == k)) for k in (1, 2, 3))
            sel = rel.info["one_way_selection"]
            cand = "-" if sel is None else ",".join(str(A[0]) for A in sel["tested"])
            chosen = "-" if sel is None or not sel["selected"] else ",".join(str(A[0]) for A in sel["selected"])
            conv = rel.info["reconstruction_info"].get("converged")
            print(f"{name} {eps:g} {var} {seed} {err:.5f} {cand} {chosen} {meas} {conv} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

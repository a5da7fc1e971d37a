"""The L1 correction of the categorical ``"auto"`` allocation (issue 14, session 37, branch wide37; synthetic only
for the fit, ``--dataset`` for the held-out evaluation).

ResidualPlanner's allocation minimizes the sum of cell variances, in which a workload table of ``c_T`` cells weighs
``1 / c_T``; the L1 error weighs it ``1 / L_T`` (``L_T``: the table's expected L1 noise,
:func:`sosproj.mechanisms.marginals_pipeline.l1_correction`). Where the public skip rule leaves a wide table
(a 30-100-value attribute at small ``m``) with its low-order sets only, ``L_T << c_T sigma`` and the low-order sets
deserve more of the budget. Variant ``G`` multiplies every measured set's relative noise by ``r_A^G`` after the skip
rule (``WIDE_L1_GAMMA = G``); ``GL``: the skip rule's rounds calibrate with the corrected shape too
(``WIDE_L1_IN_LOOP``); ``GS``: the shrinkage bands read the uncorrected set SNRs (``WIDE_L1_BAND_UNCORRECTED``).
``0`` is the default before session 37. Exact sensitivity recomputed from the shape (the pipeline).
Same seed = same standard normals (paired). A variant whose noise scales equal the baseline's is not run and printed
with the baseline's error and the tag ``same``.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/wide37_study.py --shapes w10-geo-m500 --eps 0.3 1 \\
           --variants 0 1 1L --seeds 0 1 2 > benchmarks/results_marginals/wide37/raw_fit.txt
Output columns: shape eps variant seed err ratio_to_0 measured_1/2/3 cpu_s [same]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import latent_class, shape_data  # noqa: E402
from catrule_study import score  # noqa: E402
from pubrule_study import NEW, new_data  # noqa: E402
from select_study import GEO, geo_data  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

#: Wide shapes defined for this study (session 37) before any result: 8-12 attributes, one or two with 30-100
#: values, m 500-50,000; "dir": Dirichlet latent classes, "geo": binned numerics decaying from code 0, "bell":
#: binned numerics with a class-dependent mode in the middle (an age-like attribute).
#: name -> (kind, sizes, m, alpha, classes[, decay])
WIDE = {
    "w10-geo-m500": ("geo", [2, 3, 60, 4, 5, 30, 3, 6, 2, 8], 500, 0.5, 4, 0.9),
    "w10-bell-m2k": ("bell", [2, 3, 60, 4, 5, 30, 3, 6, 2, 8], 2000, 0.5, 4),
    "w10-dir-m5k": ("dir", [2, 3, 60, 4, 5, 30, 3, 6, 2, 8], 5000, 0.5, 4),
    "w12-bell-m20k": ("bell", [3, 2, 100, 4, 5, 7, 2, 3, 6, 40, 2, 4], 20000, 0.5, 6),
    "w8-dir-m50k": ("dir", [4, 50, 3, 2, 6, 35, 3, 5], 50000, 0.3, 6),
    "w9-bell-m1k": ("bell", [3, 3, 2, 80, 9, 7, 30, 3, 9], 1000, 0.5, 4),
    "w11-geo-m10k": ("geo", [2, 4, 3, 90, 8, 6, 3, 10, 2, 5, 3], 10000, 0.5, 4, 0.95),
    "w9-bell-m800": ("bell", [2, 3, 4, 70, 3, 2, 5, 3, 40], 800, 1.0, 3),
}


def bell_data(name: str) -> Dataset:
    """A ``"bell"`` shape: per latent class, attributes with >= 20 values are a discretized normal with a
    class-dependent mode (uniform in [0.2, 0.8] of the range) and width 0.12 of the range; the others Dirichlet."""
    _, sizes, m, alpha, classes = WIDE[name]
    rng = np.random.default_rng(12345)
    z = rng.integers(0, classes, size=m)
    cols = []
    for s in sizes:
        if s >= 20:
            mu = rng.uniform(0.2, 0.8, size=classes) * s
            k = np.arange(s)[None, :]
            probs = np.exp(-0.5 * ((k - mu[:, None]) / (0.12 * s)) ** 2)
            probs /= probs.sum(axis=1, keepdims=True)
        else:
            probs = rng.dirichlet(np.full(s, alpha), size=classes)
        u = rng.random(m)
        cols.append((u[:, None] > np.cumsum(probs[z], axis=1)).sum(axis=1).clip(0, s - 1))
    return Dataset(np.stack(cols, axis=1), Domain.from_sizes(sizes))


def data_of(name: str) -> Dataset:
    if name in WIDE:
        kind, sizes, m, alpha, classes, *decay = WIDE[name]
        if kind == "dir":
            return latent_class(sizes, m, classes, np.random.default_rng(12345), alpha=alpha)
        if kind == "geo":
            GEO[name] = (sizes, m, alpha, classes, decay[0])
            return geo_data(name)
        return bell_data(name)
    if name in NEW:
        return new_data(name)
    return geo_data(name) if name in GEO else shape_data(name)


def set_variant(v: str) -> None:
    """``G`` [``L``] [``S``]: exponent ``G``; ``L``: in the skip rule's rounds too; ``S``: the shrinkage bands read the
    uncorrected set SNRs (``WIDE_L1_BAND_UNCORRECTED``)."""
    mp.WIDE_L1_IN_LOOP = "L" in v
    mp.WIDE_L1_BAND_UNCORRECTED = "S" in v
    mp.WIDE_L1_GAMMA = float(v.rstrip("LS"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[])
    ap.add_argument("--dataset", nargs="*", default=[], help="bundled evaluation datasets (held-out only)")
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", required=True, help="G or GL; the first one is the baseline")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--rng-offset", type=int, default=1000, help="rng = offset + seed (0 for the evaluation)")
    args = ap.parse_args()
    import sosproj as sp
    names = [(n, None) for n in args.shapes] + [(d, "dataset") for d in args.dataset]
    print("shape eps variant seed err ratio measured_1/2/3 cpu_s", flush=True)
    for name, kind in names:
        ds = sp.load_dataset(name) if kind else data_of(name)
        sets = list(itertools.combinations(range(ds.n), 3))
        truth = {w: ds.marginal(w) for w in sets}
        for eps, seed in itertools.product(args.eps, args.seeds):
            base_err = None
            base_sig = None
            for v in args.variants:
                set_variant(v)
                t0 = time.process_time()
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=args.rng_offset + seed,
                                 options={"on_fail": "return"})
                dt = time.process_time() - t0
                sig = rel.info["noise_scales"]
                err, meas = score(rel, truth, ds.m)
                same = ""
                if base_sig is not None and sig.keys() == base_sig.keys() and all(
                        np.isclose(sig[A], base_sig[A], rtol=1e-12) or (sig[A] == base_sig[A]) for A in sig):
                    same = " same"
                if base_err is None:
                    base_err, base_sig = err, sig
                print(f"{name} {eps:g} {v} {seed} {err:.5f} {err / base_err:.4f} {meas} {dt:.1f}{same}",
                      flush=True)
    set_variant("0")


if __name__ == "__main__":
    main()

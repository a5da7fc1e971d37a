"""The public skip rule's 1-way bar on Dirichlet AND binned-numeric shapes (issue 14, session 31; synthetic only).

Session 29 fitted ``AUTO_SKIP_SNR = (tau_1, tau_2, tau_3) = (5, 5, 8)`` on the Dirichlet latent-class shapes of
``benchmarks/allocation_study.py`` only; the "binned numeric" shapes ``GEO`` of ``benchmarks/select_study.py``
(attributes with >= 7 values decay geometrically over their codes: most records in the low codes) came later.
This study releases all 3-way marginals with the default allocation and reconstruction under skip thresholds
``TAU1,TAU2,TAU3`` (``release(..., _skip=...)``; the first variant is the baseline, main's rule) and prints the error
(L1 per marginal / m), the measured sets per order, the convergence and the CPU time (one BLAS thread). Same seed =
same standard normals on the sets both variants measure (paired). A variant whose noise scales (public: sizes, m,
epsilon, delta) equal the baseline's gives the baseline's release bit for bit; it is not run and is printed with
the baseline's error and the tag ``same``. Never titanic/adult/nltcs (``catrule_heldout.py`` is the evaluation).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/pubrule_study.py --shapes tit9-m1k tit9-geo-m1k --eps 0.3 \\
           --variants 5,5,8 2.5,5,8 --seeds 0 1 > benchmarks/results_catrule/pubrule31/raw_fit.txt
Summary: python benchmarks/catrule_drop_summary.py RAW (variant column = ``TAU1,TAU2,TAU3``).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import SHAPES, latent_class, shape_data  # noqa: E402
from catrule_study import score  # noqa: E402
from select_study import GEO, geo_data  # noqa: E402

from sosproj.data.domain import Dataset  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.spec import Adjacency  # noqa: E402

#: Held-out shapes defined for this study (session 31) before any result was seen: a slower-decaying binned
#: shape with more records and a Dirichlet(0.3) shape over 6 classes, both on titanic's public sizes.
#: name -> ("geo", sizes, m, alpha, classes, decay) or ("dir", sizes, m, alpha, classes)
NEW = {
    "tit9-geo3-m2k": ("geo", [3, 3, 2, 91, 9, 7, 32, 3, 9], 2000, 0.5, 4, 0.95),
    "adl7-geo-m3k": ("geo", [9, 16, 7, 6, 2, 42, 15], 3000, 0.3, 6, 0.9),
    "tit9-a03-m1k": ("dir", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1500, 0.3, 6),
    # held-out set B of round 3 (defined at 19:05 UTC after the held-out round, before any round-3 result):
    # small m with many small attributes (the held-out losses of round 2 were there), binned and Dirichlet
    "cat8-m400": ("dir", [2, 3, 4, 5, 6, 3, 2, 7], 400, 0.5, 4),
    "cat12-m600": ("dir", [2, 2, 3, 3, 4, 4, 5, 5, 6, 3, 2, 4], 600, 0.5, 4),
    "cat8-geo-m500": ("geo", [2, 3, 9, 4, 12, 3, 8, 20], 500, 0.5, 4, 0.85),
    "tit9-geo4-m800": ("geo", [3, 3, 2, 91, 9, 7, 32, 3, 9], 800, 0.5, 4, 0.9),
    "tit9-a1-m2k": ("dir", [3, 3, 2, 91, 9, 7, 32, 3, 9], 2000, 1.0, 4),
    "cat9-a03-m1k": ("dir", [2, 4, 3, 60, 8, 6, 25, 3, 10], 1200, 0.3, 6),
    # held-out set C of round 4 (the James-Stein shrinkage of the low-SNR 1-way residuals; defined at 19:14 UTC
    # before any round-4 row): Dirichlet (incl. a flat alpha = 2 shape, the hardest case for measuring a wide
    # attribute) and binned numerics, titanic-, adult- and other sizes
    "tit9-geo5-m1k": ("geo", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1100, 0.5, 4, 0.8),
    "tit9-a05-m1k": ("dir", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1200, 0.5, 8),
    "cat7-geo-m1500": ("geo", [2, 5, 40, 3, 16, 6, 24], 1500, 0.5, 4, 0.88),
    "cat7-m1500": ("dir", [2, 5, 40, 3, 16, 6, 24], 1500, 0.5, 4),
    "adl9-m4k": ("dir", [9, 16, 7, 6, 2, 42, 15, 5, 2], 4000, 0.5, 4),
    "adl9-geo-m4k": ("geo", [9, 16, 7, 6, 2, 42, 15, 5, 2], 4000, 0.5, 4, 0.9),
    "cat8-a2-m800": ("dir", [3, 20, 4, 12, 2, 50, 5, 8], 800, 2.0, 4),
}


def new_data(name: str) -> Dataset:
    """A ``NEW`` shape, drawn with the study's fixed seed 12345."""
    kind, sizes, m, alpha, classes, *decay = NEW[name]
    if kind == "dir":
        return latent_class(sizes, m, classes, np.random.default_rng(12345), alpha=alpha)
    GEO[name] = (sizes, m, alpha, classes, decay[0])
    return geo_data(name)


def data_of(name: str) -> Dataset:
    if name in NEW:
        return new_data(name)
    return geo_data(name) if name in GEO else shape_data(name)


def public_sigmas(ds: Dataset, eps: float, thr: tuple[float, ...]) -> np.ndarray:
    """The release's noise scales (public: sizes, m, epsilon, delta) under skip thresholds ``thr``."""
    layout = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    sa = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(ds.m, eps, layout)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(layout, "auto", snr))
    return mp.noise_scales(layout, "auto", sa, ds.m, mix=mix, skip=thr)[0]


def shrinkable(ds: Dataset, sig: np.ndarray) -> bool:
    """Whether :func:`~sosproj.mechanisms.marginals_pipeline.shrink_one_way` would touch any set (public)."""
    layout = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    snr = mp.set_snr(layout, sig, ds.m)
    qmin = max(mp.ONE_WAY_SHRINK_OFFSET, 0) + 1
    return any(len(A) == 1 and 0 < sig[i] < np.inf and snr[i] < mp.ONE_WAY_SHRINK_BAND
               and ds.domain.sizes[A[0]] - 1 >= qmin for i, A in enumerate(layout.residual_sets))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", required=True, choices=sorted(SHAPES) + sorted(GEO) + sorted(NEW))
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", required=True,
                    help="TAU1,TAU2,TAU3[/B[^F]][~C[#S][@O]] (the first: the baseline; /B: the 1-way bar "
                         "min(TAU1, B sqrt(n_i)), marginals_pipeline.ONE_WAY_CELL_SNR; ^F: min(TAU1, max(F, "
                         "B sqrt(n_i))), ONE_WAY_FLOOR; ~C: the James-Stein shrinkage of the low-SNR 1-way "
                         "residuals, ONE_WAY_SHRINK = C; #S: the lower bar only for attributes with >= S values, "
                         "ONE_WAY_LOW_MIN_SIZE; @O: ONE_WAY_SHRINK_OFFSET = O)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    thrs = {v: tuple(float(x) for x in v.split("~")[0].split("/")[0].split(",")) for v in args.variants}
    shrink = {v: float(v.split("~")[1].split("#")[0].split("@")[0]) if "~" in v else 0.0 for v in args.variants}
    minsize = {v: int(v.split("#")[1].split("@")[0]) if "#" in v else 0 for v in args.variants}
    offset = {v: int(v.split("@")[1]) if "@" in v else 2 for v in args.variants}
    cell = {v: float(v.split("~")[0].split("/")[1].split("^")[0]) if "/" in v else None for v in args.variants}
    floor = {v: float(v.split("~")[0].split("^")[1]) if "^" in v else 0.0 for v in args.variants}
    base = args.variants[0]
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = data_of(name)
        sets = list(itertools.combinations(range(ds.n), 3))
        truth = {w: ds.marginal(w) for w in sets}
        for eps in args.eps:
            sig = {}
            for v, t in thrs.items():
                mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = cell[v], floor[v]
                mp.ONE_WAY_LOW_MIN_SIZE = minsize[v]
                sig[v] = public_sigmas(ds, eps, t)
            for seed in args.seeds:
                done: dict[str, tuple[float, str, object]] = {}
                for var in args.variants:
                    mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = cell[var], floor[var]
                    mp.ONE_WAY_SHRINK, mp.ONE_WAY_LOW_MIN_SIZE = shrink[var], minsize[var]
                    mp.ONE_WAY_SHRINK_OFFSET = offset[var]
                    if var != base and np.array_equal(sig[var], sig[base]) and (
                            shrink[var] == shrink[base] or not shrinkable(ds, sig[var])):
                        err, meas, conv = done[base]
                        print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} same 0", flush=True)
                        continue
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=thrs[var],
                                     options={"on_fail": "return"})
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    done[var] = (err, meas, conv)
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

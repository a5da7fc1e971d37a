"""Positive-part James-Stein shrinkage of the measured residual sets of order 2 and 3 (issue 14, session 32,
branch stein32; synthetic shapes only for the fit and the fresh set F).

``marginals_pipeline.RESIDUAL_SHRINK_BANDS = (B_2, B_3)``: a measured set of order 2 (resp. >= 3) with
``q = prod (n_i - 1) >= 3`` whose public set SNR is below ``B_k`` gets ``max(0, 1 - (q - 2) sigma^2 / ||y||^2) y``
(toward zero residual: the maximum-entropy extrapolation of its subsets); ``(0, 0)``: off = main 640b3a4's
release bit for bit (the 1-way shrinkage and the skip rule ``AUTO_SKIP_SNR`` unchanged). Variants ``B2,B3``
(``inf``: every measured set of that order); the first is the baseline (``0,0``). Same seed = same noisy
measurement (paired; the bands are post-processing). A variant that would shrink no set (public: sizes, m, epsilon,
the noise scales) is the baseline's release and is printed as ``same`` without a run.

Shapes: the pubrule31 shapes (``pubrule_study.data_of``: allocation_study SHAPES, select_study GEO, pubrule_study
NEW), stein31's set D (``D:name``, data seed 20261127) and set E (``E:name``, data seed 31131), and this session's
fresh held-out set F (``F:name``, :data:`SET_F`, data seed :data:`SEED_F`).

Usage: python benchmarks/results_catrule/stein32/stein_higher.py --shapes tit9-m1k D:g-m600 --eps 0.1 0.3 1 3 \\
    --variants 0,0 10,0 inf,inf --seeds 0 1 2 3 4 > RAW
       python ... --diag (the public set SNRs of the measured sets of order 2 / 3 with q >= 3 per cell)
Summary: python benchmarks/catrule_drop_summary.py RAW
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent / "stein31"))
import stein_fresh  # noqa: E402
from catrule_study import score  # noqa: E402
from hybrid_info import SEED_E, SET_E  # noqa: E402
from pubrule_study import data_of, public_sigmas  # noqa: E402

from sosproj.data.domain import Dataset  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

#: Fresh held-out set F (session 32): new sizes / m / alpha / classes / decay and a new data seed, none of them a
#: shape of the earlier studies; defined and committed before any set-F row was run. Synthetic only.
SEED_F = 32271127
SET_F: dict[str, tuple] = {
    # defined at 21:03 UTC on 2026-11-27, while the fit ran, before any set-F row
    "f-dir-m1500": ("dir", [4, 3, 2, 18, 5, 3, 10, 2], 1500, 0.6, 5),
    "f-dir-m3500": ("dir", [6, 2, 12, 3, 35, 4, 2, 8, 3], 3500, 0.4, 6),
    "f-flat-m900": ("dir", [3, 4, 2, 7, 3, 12, 5], 900, 1.8, 3),
    "f-dir-m6k": ("dir", [5, 9, 2, 4, 25, 3, 7, 14], 6000, 0.5, 4),
    "f-geo-m1100": ("geo", [2, 4, 3, 16, 3, 9, 2, 6], 1100, 0.5, 4, 0.84),
    "f-geo-m2200": ("geo", [3, 2, 50, 4, 11, 2, 22, 3], 2200, 0.7, 5, 0.91),
    "f-geo-m4500": ("geo", [7, 13, 4, 2, 36, 10, 3, 5], 4500, 0.4, 5, 0.88),
    "f-geo-m650": ("geo", [3, 3, 2, 10, 4, 2, 8, 3], 650, 0.6, 3, 0.83),
    # added at 21:12 UTC, still before any set-F row, after the fit's first rows had shown losses on the skewed
    # Dirichlet(0.1) shapes (tit9-skew-m1k, tit6-skew-m1k): so that F is not easier than the seen shapes
    "f-skew-m2k": ("dir", [3, 5, 2, 20, 4, 8, 3, 12], 2000, 0.1, 8),
    "f-geo-skew-m1500": ("geo", [4, 2, 3, 28, 6, 3, 9, 2], 1500, 0.15, 8, 0.9),
}

#: Fresh held-out set G (session 32, defined at 21:28 UTC before any set-G row, after set F had rejected the bands
#: with c = 1 and while c < 1 for the sets of order >= 2 was being fitted): new sizes / m / alpha / classes and a new
#: data seed; skewed shapes (alpha <= 0.15) included from the start.
SEED_G = 32272128
SET_G: dict[str, tuple] = {
    "g-dir-m2500": ("dir", [3, 7, 2, 14, 4, 3, 22, 5], 2500, 0.6, 4),
    "g-dir-m800": ("dir", [4, 2, 3, 9, 3, 6, 2], 800, 0.8, 3),
    "g-flat-m1800": ("dir", [5, 3, 2, 11, 4, 8, 3], 1800, 1.5, 4),
    "g-skew-m3k": ("dir", [2, 6, 3, 16, 4, 10, 3, 7], 3000, 0.1, 8),
    "g-skew-m1k": ("dir", [3, 4, 2, 12, 5, 3, 8], 1000, 0.12, 6),
    "g-geo-m1600": ("geo", [3, 2, 40, 5, 9, 2, 18, 4], 1600, 0.5, 4, 0.9),
    "g-geo-m5k": ("geo", [6, 11, 3, 2, 30, 8, 4, 2, 5], 5000, 0.5, 5, 0.87),
    "g-geo-skew-m2k": ("geo", [2, 5, 3, 24, 4, 7, 2, 10], 2000, 0.12, 8, 0.88),
}


def load(name: str) -> Dataset:
    """A shape by name: ``D:x`` / ``E:x`` / ``F:x`` (stein31's sets D, E, this session's F) or a pubrule31 name."""
    if ":" not in name:
        return data_of(name)
    tag, nm = name.split(":", 1)
    table, seed = {"D": (dict(stein_fresh.FRESH), 20261127), "E": (SET_E, SEED_E), "F": (SET_F, SEED_F),
                   "G": (SET_G, SEED_G)}[tag]
    saved = dict(stein_fresh.FRESH), stein_fresh.DATA_SEED
    stein_fresh.FRESH.clear()
    stein_fresh.FRESH.update(table)
    stein_fresh.DATA_SEED = seed
    try:
        return stein_fresh.fresh_data(nm)
    finally:
        stein_fresh.FRESH.clear()
        stein_fresh.FRESH.update(saved[0])
        stein_fresh.DATA_SEED = saved[1]


def bands_of(v: str) -> tuple[float, float]:
    """``B2,B3[~C]`` -> ``(B2, B3)``."""
    b2, b3 = (float(x) for x in v.split("~")[0].split(","))
    return b2, b3


def set_c(v: str) -> None:
    """Variant suffix ``~C`` (after set F): ``marginals_pipeline.RESIDUAL_SHRINK = C``, the factor
    ``max(0, 1 - C (q - 2) sigma^2 / ||y||^2)`` for the sets of order >= 2 (the 1-way sets keep ``ONE_WAY_SHRINK``).
    (fit2.sh's rows, raw_fit2.txt, were made with a study-side wrapper of ``shrink_residuals`` that did the same in two
    passes, 1-way sets then the others, before the library had the knob: the sets are disjoint, so the result is the
    same.)"""
    mp.RESIDUAL_SHRINK = float(v.split("~")[1]) if "~" in v else 1.0


def acting(ds: Dataset, sig: np.ndarray, bands: tuple[float, float]) -> list[tuple[int, ...]]:
    """The sets of order >= 2 a variant shrinks (public: sizes, m, the noise scales)."""
    layout = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    snr = mp.set_snr(layout, sig, ds.m)
    out = []
    for i, A in enumerate(layout.residual_sets):
        if len(A) >= 2 and 0 < sig[i] < np.inf and np.prod([ds.domain.sizes[a] - 1 for a in A]) >= 3:
            if snr[i] < bands[min(len(A), 3) - 2]:
                out.append(A)
    return out


def diag(ds: Dataset, name: str, eps: float) -> None:
    sig = public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)
    layout = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    snr = mp.set_snr(layout, sig, ds.m)
    for k in (2, 3):
        v = sorted(float(snr[i]) for i, A in enumerate(layout.residual_sets) if len(A) == k and 0 < sig[i] < np.inf
                   and np.prod([ds.domain.sizes[a] - 1 for a in A]) >= 3)
        q = np.percentile(v, [0, 25, 50, 75, 100]).round(1).tolist() if v else []
        print(f"# diag {name} {eps:g} order {k}: {len(v)} measured (q>=3), set SNR min/25/50/75/max {q}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", default=["0,0"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--diag", action="store_true")
    args = ap.parse_args()
    base = args.variants[0]
    lib = mp.RESIDUAL_SHRINK_BANDS
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = load(name)
        if args.diag:
            for eps in args.eps:
                diag(ds, name, eps)
            continue
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            sig = public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)
            act = {v: acting(ds, sig, bands_of(v)) for v in args.variants}
            if all(act[v] == act[base] for v in args.variants):
                print(f"# {name} {eps:g}: no variant shrinks a set of order >= 2 (identical releases)", flush=True)
                continue
            print(f"# {name} {eps:g}: shrunk sets of order 2/3 per variant "
                  + " ".join(f"{v}:{sum(len(A) == 2 for A in act[v])}/{sum(len(A) == 3 for A in act[v])}"
                             for v in args.variants), flush=True)
            for seed in args.seeds:
                done: dict[str, tuple[float, str, object]] = {}
                for var in args.variants:
                    if var != base and act[var] == act[base]:
                        err, meas, conv = done[base]
                        print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} same 0", flush=True)
                        continue
                    mp.RESIDUAL_SHRINK_BANDS = bands_of(var)
                    set_c(var)
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed,
                                     options={"on_fail": "return"})
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    done[var] = (err, meas, conv)
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)
    mp.RESIDUAL_SHRINK_BANDS = lib
    mp.RESIDUAL_SHRINK = 1.0


if __name__ == "__main__":
    main()

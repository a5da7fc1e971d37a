"""The 1-way sets at low public SNR (issue 14, session 34, branch oneway34; synthetic shapes for the fit and the
fresh set I, the real data once at the end).

Variants (public: sizes, m, epsilon, delta; library knobs of ``marginals_pipeline``, set per release and restored):

* ``main``: the library default (``AUTO_SKIP_SNR = (2.5, 5, 12)``, James-Stein ``c (q - 2)`` on the 1-way sets
  with ``q = n_i - 1 >= 3`` below the band 5, ``c = 0.25`` on the measured 2-3-way sets): main 72e9960 bit for bit.
* ``A``: stein31's hybrid shrinkage alone (``ONE_WAY_SHRINK_SMALL = True``: offset 0, factor ``1 - q sigma^2 /
  ||y||^2``, for the measured 1-way sets below the band with ``q <= 2``; James-Stein for ``q >= 3``).
* ``B<x>``: ``tau_1 = x`` (``AUTO_SKIP_SNR = (x, 5, 12)``) with the hybrid.
* ``C<x>``: the low-SNR floor when the rule keeps a single non-empty set (``ONE_WAY_LOW_SNR_FLOOR = x``,
  ``ONE_WAY_LOW_SNR_WHEN = "one"``), with the hybrid.
* ``N<x>``: the floor when the rule keeps no set of order >= 2 (``"no-higher"``), with the hybrid.
* ``<V>s`` (round 2): variant ``V`` with the factor ``1 - q sigma^2 / ||y||^2`` (offset 0) on every measured 1-way
  set whose public set SNR is below 2.5 (``ONE_WAY_STRONG_BELOW = 2.5``: the sets a lower bar admits).

Same seed = same generator (paired: the sets both variants measure get the same standard normals). A variant whose
noise scales equal main's and whose hybrid acts on no set (public) is main's release: printed with the tag ``same``.

Shapes: every name ``tau33/tau_study.load`` knows (pubrule31 names, ``D:`` / ``E:`` / ``F:`` / ``G:`` / ``H:``)
and this session's fresh set ``I:`` (:data:`SET_I`, data seed :data:`SEED_I`).

Usage: python benchmarks/results_catrule/oneway34/oneway_study.py --shapes tit9-m1k --eps 0.1 0.3 \\
           --variants main A B0 C0 --seeds 0 1 2 3 4 5 6 7 > RAW
       python ... --diag --shapes ... (public only: per variant the measured sets, the 1-way sets added, the kept
           sets' noise growth, the small 1-way sets the hybrid shrinks)
       python ... --diag-real (public only: titanic / adult / nltcs sizes and m, no records)
Intervals: python benchmarks/results_catrule/stein32/cell_ci.py RAW main V...
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent / "stein31"))
sys.path.insert(0, str(HERE.parent / "stein32"))
sys.path.insert(0, str(HERE.parent / "tau33"))
import stein_fresh  # noqa: E402
import tau_study  # noqa: E402
from catrule_study import score  # noqa: E402

from sosproj.data.domain import Dataset  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

#: Fresh held-out set I (session 34): see notes.md for the time it was committed (before any set-I row).
SEED_I = 34128801
SET_I: dict[str, tuple] = {
    # defined at 01:57 UTC on 2026-11-28, before any fit row and before any set-I row (committed with the rule)
    # small attributes at small m (the known losses: cat8-m400, cat10-m300, cat8-a2-m800)
    "i-small-m350": ("dir", [2, 3, 2, 4, 3, 2, 5, 3], 350, 0.5, 3),
    "i-small10-m300": ("dir", [3, 2, 2, 6, 2, 3, 4, 2, 3, 2], 300, 0.7, 4),
    "i-small-geo-m500": ("geo", [2, 3, 2, 9, 3, 2, 7, 3], 500, 0.6, 3, 0.84),
    # flat Dirichlet(2)
    "i-flat-m600": ("dir", [3, 2, 4, 3, 6, 2, 5], 600, 2.0, 3),
    "i-flat-m1500": ("dir", [2, 4, 3, 8, 2, 5, 3, 10], 1500, 2.0, 4),
    # skewed Dirichlet(0.1)
    "i-skew-m800": ("dir", [3, 2, 5, 4, 2, 7, 3, 6], 800, 0.1, 6),
    "i-skew-m2500": ("dir", [4, 3, 2, 12, 3, 6, 2, 9], 2500, 0.1, 8),
    # titanic-like sizes: a 91- and a 32-value attribute among 1,000-2,000 records
    "i-tit-m1000": ("dir", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1000, 0.5, 5),
    "i-tit-geo-m1300": ("geo", [3, 2, 3, 91, 8, 6, 32, 3, 9], 1300, 0.5, 5, 0.92),
    "i-tit-skew-m2000": ("dir", [2, 3, 3, 91, 7, 9, 32, 2, 3], 2000, 0.12, 7),
    "i-tit-geo-skew-m1600": ("geo", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1600, 0.15, 6, 0.9),
    # adult-like sizes at m 5k-50k
    "i-adl-m5k": ("dir", [16, 30, 9, 16, 7, 14, 6, 5, 2], 5000, 0.5, 5),
    "i-adl-geo-m20k": ("geo", [12, 32, 8, 15, 6, 2, 5, 40, 2], 20000, 0.5, 5, 0.9),
    "i-adl-m50k": ("dir", [16, 9, 32, 7, 15, 6, 5, 2, 2], 50000, 0.4, 6),
}


def load(name: str) -> Dataset:
    if name.startswith("I:"):
        saved = dict(stein_fresh.FRESH), stein_fresh.DATA_SEED
        stein_fresh.FRESH.clear()
        stein_fresh.FRESH.update(SET_I)
        stein_fresh.DATA_SEED = SEED_I
        try:
            return stein_fresh.fresh_data(name[2:])
        finally:
            stein_fresh.FRESH.clear()
            stein_fresh.FRESH.update(saved[0])
            stein_fresh.DATA_SEED = saved[1]
    return tau_study.load(name)


def knobs(v: str) -> dict[str, object]:
    """The library knobs of variant ``v``."""
    if v == "main":
        return {}
    if v == "A":
        return {"ONE_WAY_SHRINK_SMALL": True}
    if v.endswith("s"):                 # round 2: the sets below the old bar 2.5 get the factor with q (offset 0)
        return {**knobs(v[:-1]), "ONE_WAY_STRONG_BELOW": 2.5}
    x = float(v[1:])
    if v[0] == "B":
        return {"ONE_WAY_SHRINK_SMALL": True, "AUTO_SKIP_SNR": (x, *mp.AUTO_SKIP_SNR[1:])}
    if v[0] in "CN":
        return {"ONE_WAY_SHRINK_SMALL": True, "ONE_WAY_LOW_SNR_FLOOR": x,
                "ONE_WAY_LOW_SNR_WHEN": "one" if v[0] == "C" else "no-higher"}
    raise ValueError(v)


@contextlib.contextmanager
def variant(v: str) -> Iterator[None]:
    kn = knobs(v)
    saved = {k: getattr(mp, k) for k in kn}
    try:
        for k, x in kn.items():
            setattr(mp, k, x)
        yield
    finally:
        for k, x in saved.items():
            setattr(mp, k, x)


def sigmas(sizes: list[int], m: int, eps: float, v: str) -> np.ndarray:
    with variant(v):
        return tau_study.sigmas_of(sizes, m, eps, mp.AUTO_SKIP_SNR)[0]


def small_shrunk(sizes: list[int], m: int, sig: np.ndarray, strong: float = 0.0) -> list[int]:
    """Attributes whose measured 1-way set the hybrid shrinks and James-Stein does not (q <= 2, below the band), and
    (round 2) those below ``strong`` whose factor uses ``q`` instead of ``q - 2``."""
    layout = tau_study.layout_of(sizes)
    snr = mp.set_snr(layout, sig, m)
    return [A[0] for i, A in enumerate(layout.residual_sets)
            if len(A) == 1 and 0 < sig[i] < np.inf and snr[i] < mp.ONE_WAY_SHRINK_BAND
            and (sizes[A[0]] <= 3 or snr[i] < strong)]


def key(sizes: list[int], m: int, eps: float, v: str) -> tuple[bytes, tuple[int, ...]]:
    sig = sigmas(sizes, m, eps, v)
    strong = float(knobs(v).get("ONE_WAY_STRONG_BELOW", 0.0))
    return sig.tobytes(), tuple(small_shrunk(sizes, m, sig, strong)) if v != "main" else ()


def diag(name: str, sizes: list[int], m: int, eps_list: list[float], variants: list[str]) -> None:
    layout = tau_study.layout_of(sizes)
    for eps in eps_list:
        base = sigmas(sizes, m, eps, "main")
        fin0 = np.isfinite(base)
        print(f"# diag {name} m={m} eps={eps:g} main: measured 1/2/3 "
              f"{'/'.join(map(str, tau_study.counts(sizes, base)))}", flush=True)
        for v in variants:
            if v == "main":
                continue
            sig = sigmas(sizes, m, eps, v)
            added = [A for i, A in enumerate(layout.residual_sets) if np.isfinite(sig[i]) and not fin0[i]]
            lost = [A for i, A in enumerate(layout.residual_sets) if fin0[i] and not np.isfinite(sig[i])]
            both = fin0 & np.isfinite(sig) & (base > 0)
            infl = float(np.median(sig[both] / base[both])) if both.any() else float("nan")
            sm = small_shrunk(sizes, m, sig) if v != "main" else []
            if not added and not lost and not sm:
                continue
            snr = mp.set_snr(layout, sig, m)
            add_s = ",".join(f"{sizes[A[0]]}v@{snr[layout.res_pos[A]]:.2f}" for A in added if len(A) == 1)
            print(f"# diag {name} m={m} eps={eps:g} {v}: measured 1/2/3 "
                  f"{'/'.join(map(str, tau_study.counts(sizes, sig)))}, added 1-way [{add_s}] "
                  f"(+{sum(len(A) > 1 for A in added)} higher), lost {len(lost)}, kept sets' sigma x{infl:.3f}, "
                  f"small sets shrunk (sizes) {[sizes[a] for a in sm]}", flush=True)


REAL = (("titanic", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1304),
        ("adult", [16, 32, 9, 32, 16, 7, 15, 6, 5, 2, 32, 32, 32, 42, 2], 48842))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[])
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", default=["main"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--diag", action="store_true")
    ap.add_argument("--diag-real", action="store_true")
    args = ap.parse_args()
    assert args.variants[0] == "main"
    if args.diag_real:
        # public parameters only: the sizes of ../shared/data/*-domain.json and m (no records read); nltcs is binary
        # (16 two-value attributes): no skip rule, no shrinkage, every variant is main's release
        for name, sizes, m in REAL:
            diag(name, sizes, m, args.eps, args.variants)
        return
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = load(name)
        sizes = list(ds.domain.sizes)
        if args.diag:
            diag(name, sizes, ds.m, args.eps, args.variants)
            continue
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            k = {v: key(sizes, ds.m, eps, v) for v in args.variants}
            if all(k[v] == k["main"] for v in args.variants):
                print(f"# {name} {eps:g}: every variant is main's release", flush=True)
                continue
            for seed in args.seeds:
                done: dict[tuple, tuple[float, str, object]] = {}
                for v in args.variants:
                    if k[v] in done:
                        err, meas, conv = done[k[v]]
                        print(f"{name} {eps:g} {v} {seed} {err:.6f} {meas} same 0", flush=True)
                        continue
                    t0 = time.process_time()
                    with variant(v):
                        rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed,
                                         options={"on_fail": "return"})
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    done[k[v]] = (err, meas, conv)
                    print(f"{name} {eps:g} {v} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

"""Lower skip bars ``(tau_2, tau_3)`` now that every measured set of order 2-3 is James-Stein shrunk (issue 14,
session 33, branch tau33; synthetic shapes only for the fit and the fresh set H).

The categorical ``"auto"`` rule measures a residual set of order ``k`` only when its public set SNR is at least
``AUTO_SKIP_SNR = (tau_1, tau_2, tau_3) = (2.5, 5, 8)``; since session 32 every measured set of order 2-3 with
``q >= 3`` is shrunk with ``c = RESIDUAL_SHRINK = 0.25``. Variants ``T2,T3[~C]``: ``AUTO_SKIP_SNR = (2.5, T2, T3)``
(``release(..., _skip=...)``; ``5,8``: main 8b6346f's release bit for bit, the first variant = the baseline);
``~C``: the sets of order >= 2 whose public set SNR is below main's bar (5 for order 2, 8 for order 3), i.e. the
band newly measured, are shrunk with the constant ``C`` instead of 0.25 (a study-side copy of
``shrink_residuals``' loop with a per-set constant; everything else as the library). Same seed = same generator
(paired: the normals of the sets both variants measure are the same draws); a variant whose noise scales
(public: sizes, m, epsilon, delta) and shrink constants equal the baseline's is the baseline's release and is
printed with the tag ``same``.

Shapes: every name ``stein_higher.load`` knows (pubrule31 names, ``D:`` / ``E:`` / ``F:`` / ``G:``) and this
session's fresh held-out set ``H:`` (:data:`SET_H`, data seed :data:`SEED_H`).

Usage: python benchmarks/results_catrule/tau33/tau_study.py --shapes tit9-m1k F:f-skew-m2k --eps 0.1 0.3 1 \\
           --variants 5,8 4,8 3,5 --seeds 0 1 2 3 4 > RAW
       python ... --diag (public only: per variant the measured sets per order, the sets added against the
           baseline, and how much the kept sets' noise grows)
       python ... --diag-real (public only: titanic / adult sizes and m, no records)
Summary: python benchmarks/catrule_drop_summary.py RAW; intervals: python $R/../stein32/cell_ci.py RAW 5,8 V...
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE.parent / "stein31"))
sys.path.insert(0, str(HERE.parent / "stein32"))
import stein_fresh  # noqa: E402
import stein_higher  # noqa: E402
from catrule_study import score  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.spec import Adjacency  # noqa: E402

OLD = (5.0, 8.0)          # main's tau_2, tau_3
TAU1 = 2.5

#: Fresh held-out set H (session 33): written down and committed BEFORE any set-H row (see notes.md for the time).
#: New sizes / m / alpha / classes / decay and a new data seed; skewed shapes and titanic-like sizes (a 90-value
#: and a 30-value attribute among 1,000-2,000 records). Synthetic only.
SEED_H = 33281127
SET_H: dict[str, tuple] = {
    # defined at 23:36 UTC on 2026-11-27, while the fit ran, before any fit summary was read and before any set-H row
    # titanic-like sizes: a 90-value and a 30-value attribute among 1,000-1,800 records (Dirichlet, binned, skewed)
    "h-tit-m1200": ("dir", [3, 2, 90, 4, 8, 30, 3, 6], 1200, 0.5, 5),
    "h-tit-geo-m1500": ("geo", [2, 3, 90, 7, 5, 30, 3, 9], 1500, 0.5, 4, 0.93),
    "h-tit-skew-m1800": ("dir", [3, 3, 2, 90, 6, 30, 4, 8], 1800, 0.12, 7),
    "h-tit-geo-skew-m1k": ("geo", [3, 2, 90, 8, 6, 30, 2, 4], 1000, 0.15, 6, 0.9),
    # other sizes / m: skewed, small m, flat, large m
    "h-skew-m2500": ("dir", [4, 2, 9, 3, 15, 5, 2, 6], 2500, 0.1, 8),
    "h-dir-m700": ("dir", [3, 5, 2, 8, 4, 3, 10], 700, 0.7, 3),
    "h-flat-m1300": ("dir", [4, 3, 6, 2, 9, 5, 3], 1300, 1.6, 4),
    "h-geo-m3k": ("geo", [5, 2, 24, 3, 14, 6, 2, 11], 3000, 0.6, 5, 0.86),
    "h-dir-m8k": ("dir", [7, 3, 18, 2, 5, 12, 4, 9, 2], 8000, 0.5, 5),
    "h-geo-m450": ("geo", [2, 4, 3, 12, 5, 2, 7], 450, 0.5, 3, 0.85),
}


def load(name: str) -> Dataset:
    if name.startswith("H:"):
        nm = name[2:]
        saved = dict(stein_fresh.FRESH), stein_fresh.DATA_SEED
        stein_fresh.FRESH.clear()
        stein_fresh.FRESH.update(SET_H)
        stein_fresh.DATA_SEED = SEED_H
        try:
            return stein_fresh.fresh_data(nm)
        finally:
            stein_fresh.FRESH.clear()
            stein_fresh.FRESH.update(saved[0])
            stein_fresh.DATA_SEED = saved[1]
    return stein_higher.load(name)


def parse(v: str) -> tuple[tuple[float, float, float], float | None]:
    t = v.split("~")
    t2, t3 = (float(x) for x in t[0].split(","))
    return (TAU1, t2, t3), (float(t[1]) if len(t) > 1 else None)


def layout_of(sizes: list[int]) -> ResidualLayout:
    dom = Domain.from_sizes(sizes)
    return ResidualLayout.checked(dom.sizes, mp.parse_workload(dom, 3, None))


def sigmas_of(sizes: list[int], m: int, eps: float, thr: tuple[float, ...]) -> tuple[np.ndarray, float]:
    """The release's noise scales and sensitivity under skip thresholds ``thr`` (public: sizes, m, epsilon)."""
    layout = layout_of(sizes)
    sa = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(m, eps, layout)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(layout, "auto", snr))
    sig, _, sens = mp.noise_scales(layout, "auto", sa, m, mix=mix, skip=thr)
    return sig, float(sens["sensitivity"])


def band_sets(sizes: list[int], m: int, sig: np.ndarray) -> list[tuple[int, ...]]:
    """Measured sets of order >= 2 with q >= 3 below main's bars (public): where ``~C`` acts."""
    layout = layout_of(sizes)
    snr = mp.set_snr(layout, sig, m)
    out = []
    for i, A in enumerate(layout.residual_sets):
        if len(A) >= 2 and 0 < sig[i] < np.inf and math.prod(sizes[a] - 1 for a in A) >= 3:
            if snr[i] < OLD[min(len(A), 3) - 2]:
                out.append(A)
    return out


_ORIG = mp.shrink_residuals


def banded(c_low: float):
    """``shrink_residuals`` with the constant ``c_low`` for the sets of order >= 2 below main's bars."""
    def shrink(meas, m, c, bands):
        meas, done = _ORIG(meas, m, (c[0], 0.0), (bands[0], 0.0))       # the 1-way sets as the library
        layout = meas.layout
        snr = mp.set_snr(layout, meas.sigmas, m)
        r = meas.residuals.copy()
        for i, A in enumerate(layout.residual_sets):
            sig = float(meas.sigmas[i])
            if len(A) < 2 or not (0.0 < sig < np.inf):
                continue
            q = math.prod(layout.sizes[a] - 1 for a in A)
            if q < 3:
                continue
            ck = c_low if snr[i] < OLD[min(len(A), 3) - 2] else float(c[1])
            y = layout.residual(r, A)
            ss = float(np.sum(y * y))
            y *= max(0.0, 1.0 - ck * (q - 2) * sig**2 / ss) if ss > 0 else 0.0
            done.append(A)
        return mp.Measurement(layout, r, meas.sigmas, meas.spec, meas.allocation, meas.m_public), done
    return shrink


def counts(sizes: list[int], sig: np.ndarray) -> tuple[int, int, int]:
    layout = layout_of(sizes)
    return tuple(sum(1 for i, A in enumerate(layout.residual_sets) if len(A) == k and np.isfinite(sig[i]))
                 for k in (1, 2, 3))


def diag(name: str, sizes: list[int], m: int, eps_list: list[float], variants: list[str]) -> None:
    layout = layout_of(sizes)
    for eps in eps_list:
        base = None
        for v in variants:
            thr, _ = parse(v)
            sig, sens = sigmas_of(sizes, m, eps, thr)
            if base is None:
                base = (sig, sens)
            fin0 = np.isfinite(base[0])
            added = [A for i, A in enumerate(layout.residual_sets) if np.isfinite(sig[i]) and not fin0[i]]
            both = fin0 & np.isfinite(sig) & (base[0] > 0)
            infl = float(np.median(sig[both] / base[0][both])) if both.any() else float("nan")
            lost = int(np.sum(fin0 & ~np.isfinite(sig)))
            nb = len(band_sets(sizes, m, sig))
            print(f"# diag {name} m={m} eps={eps:g} {v}: measured 1/2/3 {'/'.join(map(str, counts(sizes, sig)))}, "
                  f"added 2/3 {sum(len(A) == 2 for A in added)}/{sum(len(A) == 3 for A in added)}, lost {lost}, "
                  f"sensitivity x{sens / base[1]:.3f}, kept sets' sigma x{infl:.3f} (median), "
                  f"sets below main's bars {nb}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[])
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", default=["5,8"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--diag", action="store_true")
    ap.add_argument("--diag-real", action="store_true")
    args = ap.parse_args()
    base = args.variants[0]
    if args.diag_real:
        # public parameters only: the sizes of ../shared/data/*-domain.json and m (no records read)
        for name, sizes, m in (("titanic", [3, 3, 2, 91, 9, 7, 32, 3, 9], 1304),
                               ("adult", [16, 32, 9, 32, 16, 7, 15, 6, 5, 2, 32, 32, 32, 42, 2], 48842)):
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
            sig = {v: sigmas_of(sizes, ds.m, eps, parse(v)[0])[0] for v in args.variants}
            # a variant equals the baseline iff its noise scales do and its band constant never acts
            key = {v: (sig[v].tobytes(), parse(v)[1] if band_sets(sizes, ds.m, sig[v]) else None)
                   for v in args.variants}
            if all(key[v] == key[base] for v in args.variants):
                print(f"# {name} {eps:g}: every variant is the baseline's release", flush=True)
                continue
            print(f"# {name} {eps:g}: measured 1/2/3 per variant "
                  + " ".join(f"{v}:{'/'.join(map(str, counts(sizes, sig[v])))}" for v in args.variants), flush=True)
            for seed in args.seeds:
                done: dict[str, tuple[float, str, object]] = {}
                for var in args.variants:
                    if var != base and key[var] == key[base]:
                        err, meas, conv = done[base]
                        print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} same 0", flush=True)
                        continue
                    thr, c_low = parse(var)
                    mp.shrink_residuals = banded(c_low) if c_low is not None else _ORIG
                    t0 = time.process_time()
                    try:
                        rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=thr,
                                         options={"on_fail": "return"})
                    finally:
                        mp.shrink_residuals = _ORIG
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    done[var] = (err, meas, conv)
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

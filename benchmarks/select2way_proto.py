"""A private selection step for the categorical release at low SNR (issue 14, session 30; synthetic study).

The default ``"auto"`` release of titanic-sized data at epsilon 0.3 measures only 1-way residual sets (the skip
rule), so its 3-way tables are products of noisy 1-way tables. MST / AIM spend part of their budget *choosing*
2-way marginals from the records. This study prototypes that choice inside sosproj's residual pipeline and
compares it, on the same data and the same (epsilon, delta), with the default:

1. budget: the total (epsilon, delta) -> zCDP ``rho`` (Canonne-Kamath-Steinke conversion, as the accountant's
   ``"cks20"``; the exponential mechanism is not Gaussian, so the exact Gaussian profile of the default cannot be
   used: this costs ~10% of ``mu^2``); ``rho = rho_1 + rho_sel + rho_3`` (fractions ``f1``, ``fsel``).
2. stage 1 (Gaussian, ``rho_1``): the 1-way residual sets (those whose public set SNR reaches 5, as the skip rule),
   reconstructed by the default's reconstruction (product of the 1-way tables: the current model).
3. selection (exponential mechanism, ``rho_sel`` split over up to ``K`` rounds, ``eps0 = sqrt(8 rho_sel / K)``,
   bounded-range zCDP ``eps0^2 / 8`` per round): candidates are the attribute pairs whose 1-way sets were measured,
   plus a "stop" candidate of score 0; the score of a pair ``A`` is AIM's
   ``||M_A(D) - M_A(model)||_1 - sqrt(2/pi) sigma_A sqrt(q_A |A|)`` (the second term: the expected L1 error of
   measuring ``A``'s residual at the stage-3 scale, public), sensitivity 2 under replace-one.
4. stage 3 (Gaussian, ``rho_3``): the kept 1-way sets again and the selected pairs' 2-way residuals (the default's
   allocation shape on that family), combined with stage 1 by inverse variance per set.
5. reconstruction: the default's (LNN on the measured family, maximum-entropy extrapolation of the rest).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select2way_proto.py --shapes tit9-skew-m1k --eps 0.3 \\
           --variants 0.3:0.1:8 --seeds 0 1
``--dataset titanic`` evaluates on the bundled titanic (evaluation only; never used to choose variants).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import brentq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import SHAPES, shape_data  # noqa: E402

from sosproj.data.residuals import ResidualLayout, all_k_way  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.accountant import zcdp_epsilon_cks20  # noqa: E402
from sosproj.privacy.spec import Adjacency, PrivacySpec  # noqa: E402


def rho_of(eps: float, delta: float) -> float:
    """The largest zCDP rho whose CKS20 conversion is (eps, delta)-DP."""
    return brentq(lambda r: zcdp_epsilon_cks20(r, delta) - eps, 1e-14, 1e3, xtol=1e-16, rtol=1e-12)


def _sens(layout: ResidualLayout, s: np.ndarray, keep: np.ndarray) -> float:
    return mp.residual_sensitivity(layout, np.where(keep, s, np.inf), Adjacency.REPLACE_ONE)["sensitivity"]


def select_release(ds: Any, eps: float, delta: float, seed: int, f1: float, fsel: float, K: int,
                   tau1: float = 5.0) -> tuple[np.ndarray, ResidualLayout, dict[str, Any]]:
    """The prototype mechanism (module docstring); returns the released residuals, the layout and info."""
    gen = np.random.default_rng(1000 + seed)
    m = ds.m
    n = ds.n
    layout = ResidualLayout(ds.domain.sizes, all_k_way(n, 3))
    sets = layout.residual_sets
    rho = rho_of(eps, delta)
    rho1, rhos, rho3 = f1 * rho, fsel * rho, (1.0 - f1 - fsel) * rho
    snr = mp.public_snr(m, eps, layout)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(layout, "auto", snr))
    s = mp.allocation_shape(layout, "auto", m=m, epsilon=eps, mix=mix)
    order = np.array([len(A) for A in sets])
    # stage 1: the 1-way sets whose set SNR at the measurement budget rho_1 + rho_3 (both stages measure them)
    # reaches tau1 (re-calibrated as sets drop, as measured_sets)
    keep1 = order == 1
    while True:
        sig0 = _sens(layout, s, keep1) / math.sqrt(2.0 * (rho1 + rho3))
        ssnr = mp.set_snr(layout, np.where(keep1, sig0 * s, np.inf), m)
        low = np.flatnonzero(keep1 & (ssnr < tau1))
        if low.size == 0 or keep1.sum() <= 1:
            break
        if low.size >= keep1.sum():
            low = low[low != low[np.argmax(ssnr[low])]]
        keep1[low] = False
    sig1 = np.where(keep1, _sens(layout, s, keep1) / math.sqrt(2.0 * rho1) * s, np.inf)
    sig1[layout.res_pos[()]] = 0.0
    spec = PrivacySpec(epsilon=eps, delta=delta, adjacency=Adjacency.REPLACE_ONE, sensitivity=1.0,
                       calibration="analytic")
    meas1 = mp.measure(ds, layout, sig1, spec, "auto", gen)
    opts = {"tol": mp.default_tolerance(snr), "max_iter": mp.TIGHT_MAX_ITER, "on_fail": "return"}
    r_model, _ = mp._reconstruct_skipped(meas1, "auto", opts)
    ones = [sets[i][0] for i in np.flatnonzero(keep1)]
    cands = list(itertools.combinations(sorted(ones), 2))
    selected: list[tuple[int, ...]] = []
    sizes = ds.domain.sizes
    if rhos > 0 and K > 0 and cands:
        eps0 = math.sqrt(8.0 * rhos / K)
        # public stage-3 scale guess: K pairs and the 1-way sets sharing rho_3 (shape s)
        guess = keep1.copy()
        for A in cands[:K]:
            guess[layout.res_pos[A]] = True
        sig3_guess = _sens(layout, s, guess) / math.sqrt(2.0 * rho3)
        scores = {}
        for A in cands:
            err = float(np.abs(ds.marginal(A) - layout.marginal(r_model, A)).sum())
            q = math.prod(sizes[a] - 1 for a in A)
            cells = math.prod(sizes[a] for a in A)
            pen = math.sqrt(2.0 / math.pi) * sig3_guess * s[layout.res_pos[A]] * math.sqrt(q * cells)
            scores[A] = err - pen
        left = list(cands)
        for _ in range(K):
            names: list[Any] = [*left, None]
            sc = np.array([scores[A] for A in left] + [0.0])
            logits = eps0 * sc / (2.0 * 2.0)
            p = np.exp(logits - logits.max())
            j = int(gen.choice(len(names), p=p / p.sum()))
            if names[j] is None:
                break
            selected.append(names[j])
            left.remove(names[j])
    keep3 = keep1.copy()
    for A in selected:
        keep3[layout.res_pos[A]] = True
    sig30 = _sens(layout, s, keep3) / math.sqrt(2.0 * rho3)
    sig3 = np.where(keep3, sig30 * s, np.inf)
    sig3[layout.res_pos[()]] = 0.0
    meas3 = mp.measure(ds, layout, sig3, spec, "auto", gen)
    # combine per set by inverse variance (sets measured once keep their measurement)
    w1 = np.where(np.isfinite(sig1) & (sig1 > 0), 1.0 / np.where(sig1 > 0, sig1, 1.0) ** 2, 0.0)
    w3 = np.where(np.isfinite(sig3) & (sig3 > 0), 1.0 / np.where(sig3 > 0, sig3, 1.0) ** 2, 0.0)
    wt = w1 + w3
    a1 = np.divide(w1, wt, out=np.zeros_like(wt), where=wt > 0)
    r = layout.expand(a1) * meas1.residuals + layout.expand(1.0 - a1) * meas3.residuals
    r[layout.empty_pos] = float(m)
    sig = np.where(wt > 0, 1.0 / np.sqrt(np.where(wt > 0, wt, 1.0)), np.inf)
    sig[layout.res_pos[()]] = 0.0
    meas = mp.Measurement(layout, r, sig, spec, "auto", m)
    rr, rinfo = mp._reconstruct_skipped(meas, "auto", opts)
    return rr, layout, {"selected": selected, "n1": int(keep1.sum()), "converged": rinfo.get("converged", True)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[], choices=sorted(SHAPES))
    ap.add_argument("--dataset", nargs="*", default=[], help="bundled evaluation datasets (evaluation only)")
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", required=True, help="F1:FSEL:K, or 'default'")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    import sosproj as sp

    print("shape eps variant seed err n1 selected cpu_s", flush=True)
    data = [(nm, shape_data(nm)) for nm in args.shapes] + [(nm, sp.load_dataset(nm)) for nm in args.dataset]
    for name, ds in data:
        sets = all_k_way(ds.n, 3)
        truth = {w: ds.marginal(w) for w in sets}
        for eps, seed, var in itertools.product(args.eps, args.seeds, args.variants):
            t0 = time.process_time()
            if var == "default":
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, options={"on_fail": "return"})
                err = float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m)
                n1 = sum(1 for A in rel.layout.residual_sets if len(A) == 1) - sum(
                    1 for A in rel.info["unmeasured_sets"] if len(A) == 1)
                sel = [A for A in rel.layout.residual_sets if len(A) == 2 and A not in rel.info["unmeasured_sets"]]
            else:
                f1, fsel, K = var.split(":")
                r, lay, inf = select_release(ds, eps, 1e-9, seed, float(f1), float(fsel), int(K))
                err = float(np.mean([np.abs(np.maximum(lay.marginal(r, w), 0) - t).sum()
                                     for w, t in truth.items()]) / ds.m)
                n1, sel = inf["n1"], inf["selected"]
            dt = time.process_time() - t0
            sel_s = ",".join("".join(map(str, A)) if max(A) < 10 else "-".join(map(str, A)) for A in sel) or "-"
            print(f"{name} {eps:g} {var} {seed} {err:.5f} {n1} {sel_s} {dt:.1f}", flush=True)


if __name__ == "__main__":
    main()

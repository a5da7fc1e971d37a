"""Which residual sets the skip rule and its session-31 variants measure on the evaluation datasets' PUBLIC domains.

Sizes and m only (m is public under replace-one): for each epsilon, the measured sets per order under main's rule
(``AUTO_SKIP_SNR``) and each variant ``TAU1,TAU2,TAU3[/B[^F]]`` (``benchmarks/pubrule_study.py``), and whether the
variant's noise scales equal the rule's (then its releases are identical, bit for bit, and need not be run).

Usage: python benchmarks/pubrule_kept.py titanic adult --variants 5,5,8/0.9^2 2.5,5,8 2.5,5,8~1#4
(``rule``: the library's rule as it stands; a variant ``~C#S`` sets the shrinkage knobs, else they are 0.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers.data import load  # noqa: E402

from sosproj.data.residuals import ResidualLayout, all_k_way  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.spec import Adjacency  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--variants", nargs="+", required=True)
    args = ap.parse_args()
    lib = (mp.ONE_WAY_SHRINK, mp.ONE_WAY_LOW_MIN_SIZE)
    for name in args.datasets:
        X, _, sizes = load(name)
        m = len(X)
        lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
        order = np.array([len(A) for A in lay.residual_sets])
        for eps in (0.03, 0.1, 0.3, 1.0, 3.0, 10.0):
            a = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
            snr = mp.public_snr(m, eps, lay)
            t = mp.auto_mix(snr, rule=mp.mix_rule(lay, "auto", snr))
            rows = []
            base = None
            for v in ["rule", *args.variants]:
                w, _, sh = v.partition("~")
                thr = mp.AUTO_SKIP_SNR if v == "rule" else tuple(float(x) for x in w.split("/")[0].split(","))
                cell = float(w.split("/")[1].split("^")[0]) if "/" in w else None
                mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = cell, float(w.split("^")[1]) if "^" in w else 0.0
                if v != "rule":
                    mp.ONE_WAY_SHRINK = float(sh.split("#")[0]) if sh else 0.0
                    mp.ONE_WAY_LOW_MIN_SIZE = int(sh.split("#")[1]) if "#" in sh else 0
                sig = mp.noise_scales(lay, "auto", a, m, mix=t, skip=thr)[0]
                snr_set = mp.set_snr(lay, sig, m)
                shrunk = [lay.residual_sets[i][0] for i in range(len(sig)) if order[i] == 1 and mp.ONE_WAY_SHRINK > 0
                          and 0 < sig[i] < np.inf and snr_set[i] < mp.ONE_WAY_SHRINK_BAND
                          and sizes[lay.residual_sets[i][0]] >= 4]
                base = sig if base is None else base
                kept = [int((np.isfinite(sig) & (order == k)).sum()) for k in (1, 2, 3)]
                one = [lay.residual_sets[i][0] for i in range(len(sig)) if order[i] == 1 and np.isfinite(sig[i])]
                same = "same" if np.array_equal(sig, base) else "CHANGED"
                same = "CHANGED" if shrunk else same
                rows.append(f"{v}: {kept[0]}/{kept[1]}/{kept[2]} {same} (1-way: {one}; shrunk: {shrunk})")
            mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = None, 0.0
            mp.ONE_WAY_SHRINK, mp.ONE_WAY_LOW_MIN_SIZE = lib
            print(f"{name} m={m} eps={eps:g}: " + "; ".join(rows), flush=True)


if __name__ == "__main__":
    main()

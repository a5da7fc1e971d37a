"""Which residual sets the skip rule and its session-31 variants measure on the evaluation datasets' PUBLIC domains.

Sizes and m only (m is public under replace-one): for each epsilon, the measured sets per order under main's rule
(``AUTO_SKIP_SNR``) and each variant ``TAU1,TAU2,TAU3[/B[^F]]`` (``benchmarks/pubrule_study.py``), and whether the
variant's noise scales equal the rule's (then its releases are identical, bit for bit, and need not be run).

Usage: python benchmarks/pubrule_kept.py titanic adult --variants 5,5,8/0.9^2 2.5,5,8
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
                thr = mp.AUTO_SKIP_SNR if v == "rule" else tuple(float(x) for x in v.split("/")[0].split(","))
                cell = float(v.split("/")[1].split("^")[0]) if "/" in v else None
                mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = cell, float(v.split("^")[1]) if "^" in v else 0.0
                sig = mp.noise_scales(lay, "auto", a, m, mix=t, skip=thr)[0]
                base = sig if base is None else base
                kept = [int((np.isfinite(sig) & (order == k)).sum()) for k in (1, 2, 3)]
                one = [lay.residual_sets[i][0] for i in range(len(sig)) if order[i] == 1 and np.isfinite(sig[i])]
                same = "same" if np.array_equal(sig, base) else "CHANGED"
                rows.append(f"{v}: {kept[0]}/{kept[1]}/{kept[2]} {same} (1-way: {one})")
            mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = None, 0.0
            print(f"{name} m={m} eps={eps:g}: " + "; ".join(rows), flush=True)


if __name__ == "__main__":
    main()

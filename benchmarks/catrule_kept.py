"""Which residual sets the skip rule of the categorical "auto" allocation measures (public quantities only).

For the public domain sizes of the named datasets (their records are not read beyond their count m, which is
public under replace-one) and all 3-way marginals, prints per epsilon the number of measured sets per order,
whether the sensitivity stayed exact, and the CPU time of the choice.

Usage: python benchmarks/catrule_kept.py titanic adult
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers.data import load  # noqa: E402

from sosproj.data.residuals import ResidualLayout, all_k_way  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.spec import Adjacency  # noqa: E402


def main() -> None:
    print(f"AUTO_SKIP_SNR = {mp.AUTO_SKIP_SNR}")
    for name in sys.argv[1:]:
        X, _, sizes = load(name)
        m = len(X)
        lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
        order = np.array([len(A) for A in lay.residual_sets])
        total = [int((order == k).sum()) for k in (1, 2, 3)]
        for eps in (0.03, 0.1, 0.3, 1.0, 3.0, 10.0):
            args = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
            snr = mp.public_snr(m, eps, lay)
            t = mp.auto_mix(snr, rule=mp.mix_rule(lay, "auto", snr))
            t0 = time.process_time()
            sig, _, info = mp.noise_scales(lay, "auto", args, m, mix=t)
            dt = time.process_time() - t0
            kept = [int((np.isfinite(sig) & (order == k)).sum()) for k in (1, 2, 3)]
            print(f"{name} m={m} eps={eps:g}: measured 1/2/3-way {kept[0]}/{kept[1]}/{kept[2]} of "
                  f"{total[0]}/{total[1]}/{total[2]}, sensitivity exact {info['exact']}, {dt:.2f} s CPU")


if __name__ == "__main__":
    main()

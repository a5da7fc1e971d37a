"""Information only (after the titanic evaluation; set D is SEEN by now): the hybrid factor "offset 0 for q <= 2,
James-Stein q - 2 for q >= 3" (``hyb``) against the rule (``off2``) on set D, seeds 0-29. Study-side only: it
replaces ``marginals_pipeline.shrink_one_way`` in this process by the hybrid (no library change). On titanic the
hybrid is fixed publicly without a run: at epsilon 0.3 / 1 the shrunk sets are Fare / Age (q = 31 / 90), where it is
the rule; at 0.03 only the 2-value attribute 2 is shrunk (q = 1), where it is offset 0 (eval_offset0.txt: 0.998).

Set E (``--set E``; defined at 20:29 UTC and committed BEFORE any set-E row, after the set-D hybrid rows above):
fresh shapes for the hybrid only, with their own data seed ``SEED_E`` (titanic is seen for the hybrid: no more
titanic runs).

Usage: python benchmarks/results_catrule/stein31/hybrid_info.py > benchmarks/results_catrule/stein31/raw_hybrid.txt
       python benchmarks/results_catrule/stein31/hybrid_info.py --set E > \
           benchmarks/results_catrule/stein31/raw_hybrid_E.txt
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import stein_fresh  # noqa: E402
from catrule_study import score  # noqa: E402
from pubrule_study import public_sigmas  # noqa: E402
from stein_fresh import FRESH, fresh_data, offset_acts  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

_orig = mp.shrink_one_way

SEED_E = 31131
#: name -> as :data:`stein_fresh.FRESH` (many 2-3-value attributes at low SNR, where the hybrid acts, plus wide ones)
SET_E = {
    "e-bin-m450": ("dir", [2, 2, 3, 2, 4, 3, 2, 5, 2], 450, 0.5, 4),
    "e-mix-m800": ("dir", [3, 13, 2, 6, 3, 28, 2, 4], 800, 0.8, 3),
    "e-flat-m1k": ("dir", [2, 3, 2, 9, 3, 5, 2, 16], 1000, 2.0, 4),
    "e-a04-m3k": ("dir", [3, 2, 40, 5, 2, 11, 3, 7, 2], 3000, 0.4, 5),
    "e-geo-m400": ("geo", [2, 3, 2, 11, 3, 8, 2], 400, 0.6, 4, 0.82),
    "e-geo-m1300": ("geo", [3, 2, 30, 2, 10, 3, 16, 4], 1300, 0.5, 4, 0.9),
    "e-geo-m2500": ("geo", [2, 3, 55, 2, 3, 20, 6, 9], 2500, 1.0, 5, 0.93),
    "e-geo-m700": ("geo", [3, 2, 3, 7, 2, 14, 3, 2, 5], 700, 0.5, 3, 0.86),
}


def _hybrid(meas, m, c, band):
    """Offset 0 on the 1-way sets with q <= 2, then offset 2 (the rule) on those with q >= 3."""
    lay = meas.layout
    mp.ONE_WAY_SHRINK_OFFSET = 0
    small, done0 = _orig(meas, m, c, band)
    mp.ONE_WAY_SHRINK_OFFSET = 2
    keep = [A for A in done0 if lay.sizes[A[0]] - 1 <= 2]
    r = meas.residuals.copy()
    for A in keep:  # the q <= 2 sets from the offset-0 pass, the rest from the rule's pass
        lay.residual(r, A)[...] = lay.residual(small.residuals, A)
    rule, done2 = _orig(mp.Measurement(lay, r, meas.sigmas, meas.spec, meas.allocation, meas.m_public), m, c, band)
    return rule, sorted(set(keep) | set(done2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", choices=("D", "E"), default="D")
    args = ap.parse_args()
    if args.set == "E":
        FRESH.clear()
        FRESH.update(SET_E)
        stein_fresh.DATA_SEED = SEED_E
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in list(FRESH):
        ds = fresh_data(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in (0.1, 0.3, 1, 3):
            if not offset_acts(ds, public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)):
                continue
            for seed in range(30):
                for var in ("off2", "hyb"):
                    mp.shrink_one_way = _hybrid if var == "hyb" else _orig
                    mp.ONE_WAY_SHRINK_OFFSET = 2
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, options={"on_fail": "return"})
                    err, meas = score(rel, truth, ds.m)
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} - 0", flush=True)
    mp.shrink_one_way = _orig


if __name__ == "__main__":
    main()

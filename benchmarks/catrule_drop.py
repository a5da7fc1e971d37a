"""Skip rule of the categorical ``"auto"`` allocation: how many low-SNR sets one round drops (issue 14, cat29).

:func:`~sosproj.mechanisms.marginals_pipeline.measured_sets` drops the maximal residual sets whose public set
SNR is below the threshold and re-calibrates; ``SKIP_DROP_FRACTION`` is the share of them (lowest SNR first)
one round drops (1: all at once, the rule of session 29's start). Dropping fewer per round lets the budget
freed by the worst sets lift the SNR of the others above the threshold before they are dropped. For synthetic
categorical datasets only (``benchmarks/allocation_study.py``'s shapes; never titanic/adult/nltcs) this
releases all 3-way marginals with the default allocation and reconstruction for each variant
``FRACTION:TAU1,TAU`` (or ``FRACTION:TAU1,TAU2,TAU3``: one threshold per residual order) and prints the error
(L1 per marginal / m), the measured sets per order, the
convergence and the CPU time (one BLAS thread). The same seed draws the same standard normals in every
variant (paired).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/catrule_drop.py --shapes tit9-m1k --eps 0.3 1 \\
           --variants 1:5,5 0.5:5,5 --seeds 0 1 > benchmarks/results_catrule/cat29/raw_drop.txt
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import SHAPES, shape_data  # noqa: E402
from catrule_study import score  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", required=True, choices=sorted(SHAPES))
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variants", nargs="+", required=True,
                    help="FRACTION:TAU1,TAU[,TAU3] (e.g. 1:5,5 0.5:5,5 1:5,3,8)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = shape_data(name)
        sets = list(itertools.combinations(range(ds.n), 3))
        truth = {w: ds.marginal(w) for w in sets}
        for eps, seed, var in itertools.product(args.eps, args.seeds, args.variants):
            frac, taus = var.split(":")
            thr = tuple(float(x) for x in taus.split(","))
            mp.SKIP_DROP_FRACTION = float(frac)
            t0 = time.process_time()
            rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=thr,
                             options={"on_fail": "return"})
            dt = time.process_time() - t0
            err, meas = score(rel, truth, ds.m)
            conv = rel.info["reconstruction_info"].get("converged")
            print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

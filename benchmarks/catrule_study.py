"""Skip rule of the ``"auto"`` allocation on categorical data (issue 14; synthetic data only).

For synthetic categorical datasets (``benchmarks/allocation_study.py``'s shapes: latent-class mixtures with
titanic-/adult-like domain sizes and others; never titanic/adult/nltcs) releases all 3-way marginals with the
default allocation and reconstruction at skip thresholds ``tau`` (``release(..., _skip=tau)``; ``tau = 0``
measures every residual set: the default before this rule) and prints the error (L1 per marginal / m), the
number of measured residual sets per order, the reconstruction's convergence and the CPU time (one BLAS
thread). The same seed draws the same standard normals for every ``tau`` (paired).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/catrule_study.py --shapes tit9-skew-m1k --eps 0.1 1 \\
           --taus 0 1 3 --seeds 0 > benchmarks/results_catrule/raw_fit.txt
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import SHAPES, shape_data  # noqa: E402

from sosproj.mechanisms.marginals_pipeline import release  # noqa: E402


def score(rel: Any, truth: dict[tuple[int, ...], np.ndarray], m: int) -> tuple[float, str]:
    """L1 per workload table / m of a release against the true tables, and its measured sets per order
    (``"n1/n2/n3"``, from ``info["unmeasured_sets"]``)."""
    err = float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / m)
    un = rel.info["unmeasured_sets"]
    total = {k: sum(1 for A in rel.layout.residual_sets if len(A) == k) for k in (1, 2, 3)}
    return err, "/".join(str(total[k] - sum(1 for A in un if len(A) == k)) for k in (1, 2, 3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", required=True, choices=sorted(SHAPES))
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--taus", type=float, nargs="+", required=True)
    ap.add_argument("--tau1", type=float, nargs="+", default=[None],
                    help="thresholds of the 1-way sets (default: each tau)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--mix", type=float, default=None,
                    help="the allocation's mixing weight t (default: the library's rule, auto_mix)")
    args = ap.parse_args()
    print("shape eps tau(tau_1,tau) seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = shape_data(name)
        sets = list(itertools.combinations(range(ds.n), 3))
        truth = {w: ds.marginal(w) for w in sets}
        for eps, seed, tau, tau1 in itertools.product(args.eps, args.seeds, args.taus, args.tau1):
            t1 = tau if tau1 is None else tau1
            if tau == 0 and t1 != 0:
                continue
            t0 = time.process_time()
            rel = release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=(t1, tau), _mix=args.mix,
                          options={"on_fail": "return"})
            dt = time.process_time() - t0
            err, meas = score(rel, truth, ds.m)
            conv = rel.info["reconstruction_info"].get("converged")
            label = f"{tau:g}" if t1 == tau else f"{t1:g},{tau:g}"
            label += "" if args.mix is None else f"/t={args.mix:g}"
            print(f"{name} {eps:g} {label} {seed} {err:.5f} {meas} {conv} {dt:.1f}", flush=True)


if __name__ == "__main__":
    main()

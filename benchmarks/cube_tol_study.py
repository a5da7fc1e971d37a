"""Study of the Boolean-cube step's tolerance (synthetic binary data only; never nltcs/adult/titanic).

``reconstruction="auto"`` on binary data runs the cube projection, then the LNN projection at the
reconstruction's tolerance ``tol`` (``default_tolerance``: ``min(1e-3, 0.005 / snr)``).  The cube step's
own tolerance is ``cube_tolerance(tol) = min(CUBE_TOL_MAX, CUBE_TOL_FACTOR * tol)``; this script releases
the same noisy measurement (same seed: the allocation does not depend on the factor) with several
factors and prints, per release, the error (L1 per 3-way marginal / m), the CPU time of the release (one
BLAS thread) and the cube / LNN iteration counts.  Shapes: latent-class binary data
(``allocation_study.latent_class``, 4 classes), skewed (Dirichlet 0.1) and dense (0.5).

``--gap-tols`` also varies the cube step's certified-distance stop (``CUBE_GAP_TOL``; ``0`` = off, the
last column of each row); the summary's baseline is factor 1 with the stop off.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/cube_tol_study.py [--factors 1 10 1e9] [--seeds 0 1] \\
           > benchmarks/results_peers/runtime_v8/cube_tol_study.txt
       OPENBLAS_NUM_THREADS=1 python benchmarks/cube_tol_study.py --factors 1 --gap-tols 0 0.1 0.2 \\
           > benchmarks/results_peers/runtime_v9/cube_gap_study.txt
       python benchmarks/cube_tol_study.py --summary FILE   (geometric-mean error / time ratio to factor 1)
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from allocation_study import latent_class  # noqa: E402
from marginals_peers import errors  # noqa: E402
from peers.residual import MarginalWorkload  # noqa: E402

import sosproj.mechanisms.marginals_pipeline as mp  # noqa: E402

#: name: (n binary attributes, m, Dirichlet alpha, data seed)
SHAPES = {"bin12-m5k-skew": (12, 5000, 0.1, 11), "bin16-m20k-skew": (16, 20000, 0.1, 12),
          "bin16-m50k-dense": (16, 50000, 0.5, 13), "bin20-m10k-skew": (20, 10000, 0.1, 14)}


def study(factors: list[float], seeds: list[int], epsilons: list[float], shapes: list[str],
          gap_tols: list[float] | None = None) -> None:
    print("shape eps seed factor cube_tol l1 cpu_s cube_iter lnn_iter snr" + (" gap_tol" if gap_tols else ""),
          flush=True)
    settings = [(fac, gt) for fac in factors for gt in (gap_tols or [None])]
    for name in shapes:
        n, m, alpha, dseed = SHAPES[name]
        ds = latent_class([2] * n, m, 4, np.random.default_rng(dseed), alpha=alpha)
        wl = MarginalWorkload.all_k_way([2] * n, 3)
        true = wl.workload_answers(np.asarray(ds.records, dtype=np.int64))
        for eps in epsilons:
            for seed in seeds:
                for fac, gt in settings:
                    mp.CUBE_TOL_FACTOR = fac
                    if gt is not None:
                        mp.CUBE_GAP_TOL = gt if gt > 0 else None
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                    cpu = time.process_time() - t0
                    est = np.concatenate([np.asarray(rel.table(w), float).ravel() for w in wl.sets])
                    ri = rel.info["reconstruction_info"]
                    print(f"{name} {eps:g} {seed} {fac:g} {mp.cube_tolerance(rel.info['reconstruction_tol']):.3g} "
                          f"{errors(wl, est, true, m)[0]:.7f} {cpu:.3f} {ri['cube']['iterations']} "
                          f"{ri['iterations']} {rel.info['public_snr']:.1f}" + ("" if gt is None else f" {gt:g}"),
                          flush=True)


def summary(path: str) -> None:
    rows = [ln.split() for ln in Path(path).read_text().splitlines() if ln.split()[:1] and ln.split()[0] in SHAPES]
    def gap(r: list[str]) -> float:
        return float(r[10]) if len(r) > 10 else 0.0

    base = {(r[0], r[1], r[2]): (float(r[5]), float(r[6])) for r in rows if float(r[3]) == 1.0 and gap(r) == 0}
    agg: dict = defaultdict(list)
    for r in rows:
        b = base.get((r[0], r[1], r[2]))
        if b is not None:
            for key in ((r[1], float(r[3]), gap(r)), ("all", float(r[3]), gap(r))):
                agg[key].append((float(r[5]) / b[0], float(r[6]) / b[1]))
    print("eps factor gap_tol cells gmean_err_ratio max_err_ratio min_err_ratio gmean_cpu_ratio")
    for (eps, fac, gt), v in sorted(agg.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        e = np.array([x[0] for x in v])
        c = np.array([x[1] for x in v])
        print(f"{eps} {fac:g} {gt:g} {len(v)} {math.exp(np.log(e).mean()):.5f} {e.max():.5f} {e.min():.5f} "
              f"{math.exp(np.log(c).mean()):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--factors", nargs="+", type=float, default=[1.0, 3.0, 10.0, 1e9])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--epsilons", nargs="+", type=float, default=[0.3, 1.0, 3.0, 10.0])
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    ap.add_argument("--gap-tols", nargs="+", type=float, default=None,
                    help="values of the cube step's CUBE_GAP_TOL (0 = off)")
    ap.add_argument("--summary", default=None)
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return
    study(args.factors, args.seeds, args.epsilons, args.shapes, args.gap_tols)


if __name__ == "__main__":
    main()

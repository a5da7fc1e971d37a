"""The private 1-way selection on the evaluation datasets (issue 14, session 30): paired against the release
without it (same seed = same standard normals of the measurement). Evaluation only: the variant is chosen on the
synthetic shapes (``select_study.py``), run here once.

For each (dataset, epsilon) the public plan (:func:`select_one_way_plan`) decides first whether the step runs at
all; where it does not, the release is the one without it (table for table, tested in
``tests/test_marginals_select.py``) and the row says ``identical``.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select_eval.py --datasets titanic adult --eps 0.03 0.1 0.3 1 3 10 \\
           --variant 0.05:1:2 --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.privacy.spec import Adjacency


def plan_of(ds, eps: float, sel: tuple[float, float, float]):
    """The public plan of the default release at ``eps`` (no record read)."""
    lay = ResidualLayout(ds.domain.sizes, all_k_way(ds.n, 3))
    args = {"epsilon": eps, "delta": 1e-9, "adjacency": Adjacency.REPLACE_ONE, "calibration": "analytic"}
    snr = mp.public_snr(ds.m, eps, lay)
    mix = mp.auto_mix(snr, rule=mp.mix_rule(lay, "auto", snr))
    sig, _, info = mp.noise_scales(lay, "auto", args, ds.m, mix=mix)
    cands = [A for A in info["unmeasured_sets"] if len(A) == 1]
    if not cands:
        return None
    s = mp.allocation_shape(lay, "auto", m=ds.m, epsilon=eps, mix=mix)
    return mp.select_one_way_plan(lay, s, args, np.isfinite(sig), cands, ds.m, *sel)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--variant", required=True, help="SHARE:KAPPA:MARGIN")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    sel = tuple(float(x) for x in args.variant.split(":"))
    print("dataset eps seed err_without err_with ratio tested selected cpu_without cpu_with", flush=True)
    for name in args.datasets:
        ds = sp.load_dataset(name)
        truth = None
        for eps in args.eps:
            plan = plan_of(ds, eps, sel)
            if plan is None:
                print(f"{name} {eps:g} all identical (no 1-way set to test) - - - - - -", flush=True)
                continue
            if truth is None:
                truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
            for seed in args.seeds:
                errs, cpus, info = [], [], None
                for v in ((0.0, 1.0, 0.0), sel):
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _select=v)
                    cpus.append(time.process_time() - t0)
                    errs.append(float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m))
                    info = rel.info["one_way_selection"]
                tested = ",".join(str(A[0]) for A in info["tested"]) if info else "-"
                chosen = ",".join(str(A[0]) for A in info["selected"]) if info and info["selected"] else "-"
                print(f"{name} {eps:g} {seed} {errs[0]:.5f} {errs[1]:.5f} {errs[1] / errs[0]:.4f} {tested} {chosen} "
                      f"{cpus[0]:.2f} {cpus[1]:.2f}", flush=True)


if __name__ == "__main__":
    main()

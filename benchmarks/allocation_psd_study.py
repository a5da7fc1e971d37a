"""Does the one-hot degree-2 PSD step help after the LNN projection? Synthetic categorical data only.

For the synthetic shapes of ``benchmarks/allocation_study.py`` (latent-class mixtures; never
nltcs/adult/titanic), all 3-way marginals, the default allocation (``"auto"``, one-hot rule) and one
noisy measurement per (shape, epsilon, seed), this records the error (L1 per marginal / m) of the two
reconstructions of the SAME measurement that ``reconstruction="auto"`` computes on categorical data:
the LNN projection, and LNN + one-hot PSD warm-started from it (with the convergence of each: the
default returns the PSD answer only when it converged). Paired by construction: the ratio
``psd / lnn`` isolates the PSD set.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/allocation_psd_study.py cat9-wide --seeds 2 \\
           --eps 0.03 0.1 0.3 1 3 10 > benchmarks/results_allocation/raw_psd_cat9wide.txt
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from allocation_study import SHAPES, shape_data  # noqa: E402

from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402
from sosproj.privacy.spec import Adjacency  # noqa: E402
from sosproj.sdp.marginal_admm import MarginalProjector  # noqa: E402

DELTA = 1e-9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("only", nargs="?", default="cat", help="shape-name prefix")
    ap.add_argument("--eps", type=float, nargs="+", default=[0.03, 0.1, 0.3, 1.0, 3.0, 10.0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--seed0", type=int, default=0)
    args = ap.parse_args()
    print("shape eps snr seed err_lnn err_psd lnn_it lnn_conv psd_it psd_conv t_lnn t_psd", flush=True)
    for name, (sizes, *_) in SHAPES.items():
        if not name.startswith(args.only) or all(s == 2 for s in sizes):
            continue
        ds = shape_data(name)
        sets = list(itertools.combinations(range(len(sizes)), 3))
        lay = ResidualLayout.checked(ds.domain.sizes, sets)
        truth = [ds.marginal(w) for w in lay.workload]

        def err(r: np.ndarray, lay=lay, truth=truth, m=ds.m) -> float:
            return float(np.mean([np.abs(lay.marginal(r, w) - t).sum() for w, t in zip(lay.workload, truth,
                                                                                           strict=True)]) / m)

        for eps, seed in itertools.product(args.eps, range(args.seed0, args.seed0 + args.seeds)):
            snr = mp.public_snr(ds.m, eps, lay)
            rule = mp.mix_rule(lay, "auto", snr)
            spec_args = {"epsilon": eps, "delta": DELTA, "adjacency": Adjacency.REPLACE_ONE,
                         "calibration": "analytic"}
            sig, spec, _ = mp.noise_scales(lay, "auto", spec_args, ds.m, mix=mp.auto_mix(snr, rule=rule))
            meas = mp.measure(ds, lay, sig, spec, "auto", np.random.default_rng(1000 + seed))
            opts = {"tol": mp.default_tolerance(snr), "max_iter": mp.TIGHT_MAX_ITER}
            t0 = time.perf_counter()
            r1, i1, st = MarginalProjector(lay, meas.weights, **opts).solve_state(meas.residuals, on_fail="return")
            t1 = time.perf_counter()
            r2, i2, _ = MarginalProjector(lay, meas.weights, psd=True, **opts).solve_state(
                meas.residuals, on_fail="return", warm_start=st)
            t2 = time.perf_counter()
            print(f"{name} {eps:g} {snr:.4g} {seed} {err(r1):.6f} {err(r2):.6f} {i1['iterations']} "
                  f"{int(i1['converged'])} {i2['iterations']} {int(i2['converged'])} {t1 - t0:.1f} {t2 - t1:.1f}",
                  flush=True)


if __name__ == "__main__":
    main()

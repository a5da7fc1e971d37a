"""Information only (session 33, after the rejection): how much of a lower bar's loss is the noise growth alone.

For a cell and a variant ``T2,T3`` (``tau_study.py``): main's release (``5,8``), the variant's release, and main's
family of measured sets with every sigma multiplied by the public factor f = sensitivity(variant) /
sensitivity(main) (``noise``: the cost of the added sets' budget without their tables; a study-side wrapper of
``marginals_pipeline.measure``). Same seeds as the fit (rng = 1000 + seed).

Usage: python benchmarks/results_catrule/tau33/noise_only.py --cells G:g-dir-m800@1@4,8 ... --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tau_study as ts  # noqa: E402
from catrule_study import score  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

_MEASURE = mp.measure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", nargs="+", required=True, help="SHAPE@EPS@T2,T3")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    print("shape eps variant f ratio_noise_only ratio_variant (geometric means over seeds, paired with 5,8)")
    for cell in args.cells:
        name, eps_s, var = cell.split("@")
        eps = float(eps_s)
        ds = ts.load(name)
        sizes = list(ds.domain.sizes)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        s0 = ts.sigmas_of(sizes, ds.m, eps, ts.parse("5,8")[0])[1]
        s1 = ts.sigmas_of(sizes, ds.m, eps, ts.parse(var)[0])[1]
        f = s1 / s0
        logs_n, logs_v = [], []
        for seed in args.seeds:
            errs = {}
            for tag, thr, fac in (("main", ts.parse("5,8")[0], 1.0), ("noise", ts.parse("5,8")[0], f),
                                  ("variant", ts.parse(var)[0], 1.0)):
                mp.measure = (lambda d, lay, sig, *a, _f=fac: _MEASURE(d, lay, np.where(np.isfinite(sig), sig * _f,
                                                                                        sig), *a))
                try:
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=thr,
                                     options={"on_fail": "return"})
                finally:
                    mp.measure = _MEASURE
                errs[tag] = score(rel, truth, ds.m)[0]
            logs_n.append(math.log(errs["noise"] / errs["main"]))
            logs_v.append(math.log(errs["variant"] / errs["main"]))
            print(f"# {name} {eps:g} {var} seed {seed}: main {errs['main']:.6f} noise-only {errs['noise']:.6f} "
                  f"variant {errs['variant']:.6f}", flush=True)
        print(f"{name} {eps:g} {var} {f:.4f} {math.exp(np.mean(logs_n)):.4f} {math.exp(np.mean(logs_v)):.4f}",
              flush=True)


if __name__ == "__main__":
    main()

"""Information only (after the rejection; tau33's noise_only.py for this session's variants): how much of a lower
1-way bar's loss is the kept sets' noise growth alone. For a cell and a variant V (``oneway_study.py``): main, ``A``
(the hybrid alone: V's post-processing on main's sets), ``noise`` (A with every measured sigma multiplied by the
public factor f = sensitivity(V) / sensitivity(main): the cost of the added sets' budget without their tables; a
study-side wrapper of ``marginals_pipeline.measure``) and V. Same seeds as the fit (rng = 1000 + seed).

Usage: python benchmarks/results_catrule/oneway34/noise_only.py --cells F:f-flat-m900@0.1@B2 ... --seeds 0 1 ... 9
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
import oneway_study as ow  # noqa: E402
import tau_study  # noqa: E402
from catrule_study import score  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

_MEASURE = mp.measure


def sens(sizes: list[int], m: int, eps: float, v: str) -> float:
    with ow.variant(v):
        return tau_study.sigmas_of(sizes, m, eps, mp.AUTO_SKIP_SNR)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", nargs="+", required=True, help="SHAPE@EPS@VARIANT")
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    args = ap.parse_args()
    print("shape eps variant f ratio_A ratio_noise_only ratio_variant (geometric means over seeds, paired with main)")
    for cell in args.cells:
        name, eps_s, var = cell.split("@")
        eps = float(eps_s)
        ds = ow.load(name)
        sizes = list(ds.domain.sizes)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        f = sens(sizes, ds.m, eps, var) / sens(sizes, ds.m, eps, "main")
        logs: dict[str, list[float]] = {"A": [], "noise": [], "variant": []}
        for seed in args.seeds:
            errs = {}
            for tag, v, fac in (("main", "main", 1.0), ("A", "A", 1.0), ("noise", "A", f), ("variant", var, 1.0)):
                mp.measure = (lambda d, lay, sig, *a, _f=fac: _MEASURE(d, lay, np.where(np.isfinite(sig), sig * _f,
                                                                                        sig), *a))
                try:
                    with ow.variant(v):
                        rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed,
                                         options={"on_fail": "return"})
                finally:
                    mp.measure = _MEASURE
                errs[tag] = score(rel, truth, ds.m)[0]
            for k in logs:
                logs[k].append(math.log(errs[k] / errs["main"]))
        print(f"{name} {eps:g} {var} {f:.4f} " + " ".join(f"{math.exp(np.mean(logs[k])):.4f}" for k in logs),
              flush=True)


if __name__ == "__main__":
    main()

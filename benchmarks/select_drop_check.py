"""The study knob ``SELECT_DROP_REJECTED`` of the private 1-way selection (issue 14, session 30; synthetic only):
rejected candidates dropped from the start (``True``, the default) or left to the public rule's own path
(``False``), on the cells where the fit / holdout found a loss plus two controls; geometric mean over seeds 0-3
of the ratio to the release without the selection.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select_drop_check.py > benchmarks/results_peers/titanic30/drop_check.txt
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from allocation_study import shape_data  # noqa: E402
from select_study import GEO, geo_data  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

CELLS = [("cat6-wide-m2k", 0.3), ("tit9-m1k", 0.3), ("tit9-m1k", 1.0), ("cat9-wide-m1k", 1.0), ("tit6-geo-m1k", 0.3),
         ("cat9-geo-m1k", 0.3)]


def main() -> None:
    print("shape eps drop_rejected(True, default) rule_path(False)   (geometric mean over seeds 0-3 of / without)")
    for name, eps in CELLS:
        ds = geo_data(name) if name in GEO else shape_data(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        res = {}
        for flag in (None, True, False):
            es = []
            for seed in range(4):
                if flag is not None:
                    mp.SELECT_DROP_REJECTED = flag
                sel = (0.0, 1.0, 0.0) if flag is None else None
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _select=sel,
                                 options={"on_fail": "return"})
                es.append(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / ds.m)
            res[flag] = np.array(es)
        mp.SELECT_DROP_REJECTED = True
        g = {f: float(np.exp(np.mean(np.log(res[f] / res[None])))) for f in (True, False)}
        print(f"{name} {eps:g} {g[True]:.4f} {g[False]:.4f}", flush=True)


if __name__ == "__main__":
    main()

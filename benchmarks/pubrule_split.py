"""Where a lower 1-way bar loses (session 31, issue 14; synthetic shapes only): the 3-way error split into the tables
with and without the wide attribute the lower bar adds, and that attribute's own 1-way error against the uniform
table's. Seeds 0-3 (rng 1000 + seed, as ``pubrule_study.py``), L1 / m.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/pubrule_split.py > benchmarks/results_catrule/pubrule31/split.txt
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pubrule_study import data_of  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

CASES = (("tit9-m1k", 0.3, 6), ("tit9-geo-m1k", 0.3, 6), ("tit9-m1k", 1.0, 3), ("tit6-m1k", 0.3, 4))


def main() -> None:
    print("shape eps thresholds attr err_with_attr err_without_attr attr_1way_err uniform_1way_err")
    for name, eps, big in CASES:
        ds = data_of(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        uni = float(np.abs(ds.marginal((big,)) - ds.m / ds.domain.sizes[big]).sum() / ds.m)
        for thr in ((5.0, 5.0, 8.0), (2.5, 5.0, 8.0)):
            w_in, w_out, one = [], [], []
            for seed in range(4):
                rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, _skip=thr)
                e = {w: float(np.abs(rel.table(w) - t).sum() / ds.m) for w, t in truth.items()}
                w_in.append(np.mean([v for w, v in e.items() if big in w]))
                w_out.append(np.mean([v for w, v in e.items() if big not in w]))
                one.append(float(np.abs(rel.table((big,)) - ds.marginal((big,))).sum() / ds.m))
            print(f"{name} {eps:g} {','.join(f'{x:g}' for x in thr)} {big} {np.mean(w_in):.4f} {np.mean(w_out):.4f} "
                  f"{np.mean(one):.4f} {uni:.4f}", flush=True)


if __name__ == "__main__":
    main()

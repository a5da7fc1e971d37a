"""The library default (no knob set) reproduces eval.txt's bands rows (titanic at epsilon 1 and 10, seed 0).
Usage: python benchmarks/results_catrule/stein32/check_default.py > benchmarks/results_catrule/stein32/check_default.txt
"""

import itertools
import sys

import numpy as np

sys.path[:0] = ["benchmarks"]
from catrule_study import score  # noqa: E402
from peers.data import load  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

X, _, sizes = load("titanic")
ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
print("defaults", mp.RESIDUAL_SHRINK_BANDS, mp.RESIDUAL_SHRINK)
for eps in (1.0, 10.0):
    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=0)
    print(f"titanic {eps:g} seed 0 default err {score(rel, truth, ds.m)[0]:.6f}; shrunk sets of order 2/3: "
          f"{sum(len(A) == 2 for A in rel.info['shrunk_sets'])}/{sum(len(A) == 3 for A in rel.info['shrunk_sets'])}")

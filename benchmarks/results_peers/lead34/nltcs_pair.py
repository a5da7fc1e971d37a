"""nltcs: the default against the framework's ``allocation="equal-tables"`` (the same standard normals) and the
old equal-noise tables + cube mechanism (``release_tables``, its own noise).

One JSON line per seed: L1 per marginal / m over all 560 3-way tables of each release, and its wall seconds.
Usage (from the repository root): ``python benchmarks/results_peers/lead34/nltcs_pair.py EPS SEED0 SEED1``.
"""

import itertools
import json
import sys
import time

import numpy as np

import sosproj as sp
from sosproj.mechanisms.marginal_tables import release_tables

eps = float(sys.argv[1])
seeds = range(int(sys.argv[2]), int(sys.argv[3]))
ds = sp.load_dataset("nltcs")
m = ds.m
W = list(itertools.combinations(range(ds.n), 3))
truth = {w: ds.marginal(w) for w in W}


def l1(rel):
    return float(np.mean([np.abs(np.asarray(rel.table(w)) - truth[w]).sum() / m for w in W]))


for s in seeds:
    row = {"eps": eps, "seed": s}
    runs = [("default", lambda s=s: sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=s)),
            ("fw_equal", lambda s=s: sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=s,
                                                          allocation="equal-tables")),
            ("legacy", lambda s=s: release_tables(ds.records, 3, epsilon=eps, delta=1e-9, rng=s))]
    for name, fn in runs:
        t = time.perf_counter()
        rel = fn()
        row[name] = l1(rel)
        row[name + "_s"] = round(time.perf_counter() - t, 2)
    print(json.dumps(row), flush=True)

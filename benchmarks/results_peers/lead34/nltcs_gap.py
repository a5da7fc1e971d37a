"""nltcs: the default against the same release with the cube step run to its residual test
(``CUBE_GAP_TOL = None``; information only). One JSON line per seed: L1 per marginal / m and the cube step's
iterations. Usage (from the repository root): ``python benchmarks/results_peers/lead34/nltcs_gap.py EPS SEED0 SEED1``.
"""

import itertools
import json
import sys

import numpy as np

import sosproj as sp
import sosproj.mechanisms.marginals_pipeline as mp

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
    for name, gap in [("default", 0.05), ("gap_none", None)]:
        mp.CUBE_GAP_TOL = gap
        rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=s)
        row[name] = l1(rel)
        row[name + "_it"] = rel.info["reconstruction_info"]["cube"]["iterations"]
    print(json.dumps(row), flush=True)

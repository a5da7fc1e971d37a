"""Diagnostic: the allocation's mixing weight t (0 = RP, 1 = equal tables) under the exact-polytope default.

Usage: python benchmarks/results_marginals/joint36/mix_scan.py SHAPE EPS T1,T2,... SEED1,SEED2,...
Prints the mean L1 / m at each t relative to the rule's own t.
"""

from __future__ import annotations

import sys

import numpy as np
from common import load

import sosproj as sp
from sosproj.data.domain import as_dataset
from sosproj.mechanisms import marginals_pipeline as mp

sys.path.insert(0, "benchmarks")
from joint_study import l1_error  # noqa: E402

name, eps = sys.argv[1], float(sys.argv[2])
mixes = [float(x) for x in sys.argv[3].split(",")]
seeds = [int(s) for s in sys.argv[4].split(",")]
X = load(name)
ds = as_dataset(X, None)
base = sp.release_marginals(X, 3, epsilon=eps, delta=1e-9, rng=0).info["auto_mix"]
out = {}
for t in [*mixes, None]:
    errs = [l1_error(mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=s, _mix=t), X) for s in seeds]
    out[t if t is not None else f"auto={base:.3f}"] = np.mean(errs)
ref = out[f"auto={base:.3f}"]
print(name, eps, {k: round(v / ref, 4) for k, v in out.items()}, flush=True)

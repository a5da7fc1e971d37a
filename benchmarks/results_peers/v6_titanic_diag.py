"""Diagnostic only (no parameter is set from it): on titanic at epsilon 0.1, seed 0, the default's pipeline with
the mix weight forced to t = 2 (what the v4 recon=lnn rows used) and the current converged LNN, and t = 2 with
the v4 LNN (1,000 iterations, initial penalty factor 1), to tell whether the gap of the default to the v4
recon=lnn rows (1.088 at epsilon 0.1) comes from the allocation or from the v4 LNN's early stop.

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_peers/v6_titanic_diag.py \
           > benchmarks/results_peers/v6_titanic_diag.txt
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

import sosproj as sp
from sosproj.mechanisms.marginals_pipeline import release
from sosproj.sdp import marginal_admm

ds = sp.load_dataset("titanic")
sets = list(itertools.combinations(range(ds.n), 3))
truth = {w: ds.marginal(w) for w in sets}
print("eps seed mix rho0_factor max_iter l1 converged iterations seconds", flush=True)
cases = [(2.0, 10.0, None), (2.0, 1.0, 1000)] if len(sys.argv) < 2 else [(float(sys.argv[1]), 10.0, None)]
for mix, rf, mi in cases:
    marginal_admm.RHO0_FACTOR = rf
    t0 = time.perf_counter()
    rel = release(ds, 3, epsilon=0.1, delta=1e-9, rng=0, _mix=mix,
                  options={"on_fail": "return"} | ({"max_iter": mi} if mi else {}))
    err = float(np.mean([np.abs(rel.table(w) - truth[w]).sum() for w in sets]) / ds.m)
    ri = rel.info["reconstruction_info"]
    print(f"0.1 0 {mix:g} {rf:g} {mi or 'default'} {err:.5f} {ri.get('converged')} {ri.get('iterations')} "
          f"{time.perf_counter() - t0:.1f}", flush=True)

"""Diagnostic: the exact polytope beyond the auto range (n = 18, 20), one planted shape, one seed.

Usage: python benchmarks/results_marginals/joint36/n18_n20.py N EPS
Prints, for reconstruction "joint" and "auto" (the cube path above 16 attributes): CPU seconds, iterations,
convergence, the Frank-Wolfe gap and the L1 / m.
"""

from __future__ import annotations

import sys
import time

import sosproj as sp
from sosproj.data.synthetic import planted_binary

sys.path.insert(0, "benchmarks")
from joint_study import l1_error  # noqa: E402

n, eps = int(sys.argv[1]), float(sys.argv[2])
X = planted_binary(30000, n, n_clusters=4, concentration=0.4, rng=5)
for rec in ("joint", "auto"):
    t = time.process_time()
    rel = sp.release_marginals(X, 3, epsilon=eps, delta=1e-9, reconstruction=rec, rng=0)
    dt = time.process_time() - t
    ri = rel.info["reconstruction_info"]
    print(n, eps, rec, ri.get("binary_step"), round(dt, 1), ri.get("iterations"), ri.get("converged"),
          ri.get("frank_wolfe_gap"), round(l1_error(rel, X), 5), flush=True)

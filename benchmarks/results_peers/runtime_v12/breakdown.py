"""Where the final nltcs release's CPU goes (issue 14, branch nltcs): release, cube solve, LNN solve, per eps / seed.

Run: python benchmarks/results_peers/runtime_v12/breakdown.py > benchmarks/results_peers/runtime_v12/breakdown.txt
(one process, one BLAS thread; the first release also pays the imports, so a warm-up release runs first).
"""
import os
import sys
import time

sys.path.insert(1, os.path.join(os.path.dirname(__file__), "..", ".."))
from marginals_peers import _dataset  # noqa: E402
from peers.data import load  # noqa: E402

import sosproj as sp  # noqa: E402
import sosproj.sdp.cube_tables_admm as cta  # noqa: E402
import sosproj.sdp.marginal_admm as madmm  # noqa: E402

acc = {"cube": 0.0, "lnn": 0.0}


def timed(fn, key):
    def wrap(*a, **k):
        c = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            acc[key] += time.process_time() - c
    return wrap


cta.CubeTablesProjector.solve = timed(cta.CubeTablesProjector.solve, "cube")
cls = [getattr(madmm, n) for n in dir(madmm)]
for c in [c for c in cls if isinstance(c, type) and hasattr(c, "solve_state")]:
    c.solve_state = timed(c.solve_state, "lnn")
X, names, sizes = load("nltcs")
ds, _ = _dataset("nltcs", X, names, sizes)
sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-9, rng=99)        # warm-up: imports
os.system("uptime")
print("eps seed | release CPU s | cube solve | LNN solve | rest | cube iterations, stop")
for eps in (0.3, 1, 3, 10):
    for seed in (0, 1):
        acc["cube"] = acc["lnn"] = 0.0
        c = time.process_time()
        rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
        tot = time.process_time() - c
        cube = rel.info["reconstruction_info"]["cube"]
        rest = tot - acc["cube"] - acc["lnn"]
        print(f"{eps} {seed} | {tot:.3f} | {acc['cube']:.3f} | {acc['lnn']:.3f} | {rest:.3f} | "
              f"{cube['iterations']}, {cube['stop']}", flush=True)
os.system("uptime")

"""Profile one n = 64 support solve (tensor of support_scale.py, seed 2026): cProfile of the whole solve.

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/n64_28/profile64.py \
    [--n 64] [--tensor 0] [--out FILE.prof]
"""
import argparse
import cProfile
import os
import pstats
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--tensor", type=int, default=0)
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--out", default=None)
ap.add_argument("--top", type=int, default=45)
a = ap.parse_args()
R = MomentRelaxation(unit_ball(a.n), 4)
rng = np.random.default_rng([2026, a.n])
for _ in range(a.tensor + 1):
    W = rng.standard_normal((a.n, a.n, a.n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", a.tol, 3)
print(f"load {os.getloadavg()[0]:.2f}", flush=True)
pr = cProfile.Profile()
c0, t0 = time.process_time(), time.perf_counter()
pr.enable()
res = ConicSolver(prob, "rankone_newton", tol=a.tol, **settings).solve(on_fail="return")
pr.disable()
print(f"cpu {time.process_time() - c0:.2f}s wall {time.perf_counter() - t0:.2f}s status {res.status} "
      f"iters {res.iterations} load {os.getloadavg()[0]:.2f}")
print({k: res.info.get(k) for k in ("dr_iterations", "dr_capped_iterations", "newton_rounds", "newton_steps",
                                     "newton_cg", "newton_update_checks", "partial_decompositions",
                                     "full_decompositions", "missed_decompositions", "cert_relative_gap")})
if a.out:
    pr.dump_stats(a.out)
st = pstats.Stats(pr)
st.sort_stats("cumulative").print_stats(a.top)

"""Profile of ``solver="rankone_newton"`` (issue 15, session 28, branch n100): cProfile of one solve of
``support_scale.py``'s tensor ``--tensor`` at size ``--n`` with a wall-clock limit, plus per-step timers of the
rough Douglas-Rachford phase (hooks on ``DualFeasibility.affine`` and the eigenpair trackers; the solver is
unchanged). Run: see COMMAND.md in this folder.
"""
from __future__ import annotations

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
ap.add_argument("--max-time", type=float, default=600.0)
ap.add_argument("--top", type=int, default=45)
args = ap.parse_args()

print(f"# profile_rough n={args.n} tensor {args.tensor} tol {args.tol} max_time {args.max_time} "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')} load {os.getloadavg()[0]:.2f}", flush=True)
t0 = time.perf_counter()
R = MomentRelaxation(unit_ball(args.n), 4)
rng = np.random.default_rng([2026, args.n])
for _ in range(args.tensor + 1):
    W = rng.standard_normal((args.n, args.n, args.n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", args.tol, 3)
print(f"build {time.perf_counter() - t0:.1f}s", flush=True)
pr = cProfile.Profile()
w0, c0 = time.perf_counter(), time.process_time()
pr.enable()
res = ConicSolver(prob, "rankone_newton", tol=args.tol, time_limit=args.max_time, **settings).solve(on_fail="return")
pr.disable()
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
info = res.info
print(f"status {res.status} wall {wall:.1f}s cpu {cpu:.1f}s load {os.getloadavg()[0]:.2f}")
for k in ("candidate", "dr_iterations", "dr_capped_iterations", "dr_status", "dr_capped_status", "newton_steps",
          "newton_rounds", "newton_cg", "cert_relative_gap", "cert_upper", "cert_lower"):
    print(f"  {k}: {info.get(k)}")
st = pstats.Stats(pr)
st.sort_stats("tottime").print_stats(args.top)
st.sort_stats("cumulative").print_stats(args.top)

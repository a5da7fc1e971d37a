"""Issue 15 (support3): solver="rankone_newton" with the rough phase's start / eigen-tracker / gap varied.

OPENBLAS_NUM_THREADS=1 python benchmarks/results_support/experiments/support3_sweep.py N TENSORS CFG...
CFG = start:eig:dr_gap[:sigma[:newton_tol]]   (start: flattening | zero; eig: krylov | filter)
"""
import os
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, rankone_dual
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

n, T = int(sys.argv[1]), int(sys.argv[2])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])      # the tensors of benchmarks/support_scale.py
Ws = [rng.standard_normal((n, n, n)) for _ in range(T)]
rankone_dual.FILTER_DEGREE = int(os.environ.get("FILTER_DEGREE", rankone_dual.FILTER_DEGREE))
print(f"# load {os.getloadavg()[0]:.1f} filter degree {rankone_dual.FILTER_DEGREE}", flush=True)
for cfg in sys.argv[3:]:
    parts = cfg.split(":")
    start, eig, dg = parts[:3]
    more = {}
    if len(parts) > 3:
        more["sigma"] = float(parts[3])
    if len(parts) > 4:
        more["newton_tol"] = float(parts[4])
    cpus = []
    for i, W in enumerate(Ws):
        prob = compile_support(R, 3, W)
        _, st = support_route(R, "rankone_newton", 1e-7, 3)
        c0, w0 = time.process_time(), time.perf_counter()
        res = ConicSolver(prob, "rankone_newton", tol=1e-7 if n <= 30 else 1e-6, dr_gap=float(dg), start=start,
                          eig=eig, time_limit=900, **more, **st).solve(on_fail="return")
        c, w = time.process_time() - c0, time.perf_counter() - w0
        cpus.append(c)
        inf = res.info
        print(f"n={n} t{i} {cfg} cpu={c:.2f} wall={w:.2f} {res.status} gap={inf['cert_relative_gap']:.1e} "
              f"dr={inf['dr_iterations']} newton={inf['newton_steps']} cg={inf['newton_cg']} "
              f"part/full={inf['partial_decompositions']}/{inf['full_decompositions']} "
              f"flat={inf.get('flattening_bound')} load={os.getloadavg()[0]:.1f}", flush=True)
    print(f"CFG {cfg} n={n} median cpu {np.median(cpus):.2f}", flush=True)

"""Parameter sweep of solver="rankone_newton" (dr_gap, newton_tol, sigma) on the benchmark tensors.

OPENBLAS_NUM_THREADS=1 python benchmarks/results_support/experiments/newton_sweep.py N TENSORS CFG...
CFG = dr_gap:newton_tol:sigma
"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

n, T = int(sys.argv[1]), int(sys.argv[2])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])      # the tensors of benchmarks/support_scale.py
Ws = [rng.standard_normal((n, n, n)) for _ in range(T)]
for cfg in sys.argv[3:]:
    dg, nt, sg = (float(v) for v in cfg.split(":"))
    cpus = []
    for i, W in enumerate(Ws):
        prob = compile_support(R, 3, W)
        _, st = support_route(R, "rankone_newton", 1e-7, 3)
        c0 = time.process_time()
        res = ConicSolver(prob, "rankone_newton", tol=1e-7, dr_gap=dg, newton_tol=nt, sigma=sg, time_limit=600,
                          **st).solve(on_fail="return")
        c = time.process_time() - c0
        cpus.append(c)
        inf = res.info
        print(f"n={n} t{i} {cfg} cpu={c:.2f} {res.status} gap={inf['cert_relative_gap']:.1e} dr={inf['dr_iterations']} "
              f"newton={inf['newton_steps']} cg={inf['newton_cg']} rounds={inf['newton_rounds']} "
              f"part/full={inf['partial_decompositions']}/{inf['full_decompositions']}", flush=True)
    print(f"CFG {cfg} n={n} median cpu {np.median(cpus):.2f}", flush=True)

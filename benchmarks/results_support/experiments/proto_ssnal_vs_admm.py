# ruff: noqa: B007, B023, E402, E501
"""Prototype of issue 15 (run as recorded in newton_prototypes.txt; kept for the record, not a library module)."""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.solve import ConicSolver
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n = int(sys.argv[1])
solvers = sys.argv[2].split(",")
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
for ti in range(int(sys.argv[3])):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    for s in solvers:
        for tol in (1e-6, 1e-7, 1e-8):
            c0 = time.process_time()
            res = ConicSolver(prob, s, tol=tol, time_limit=600).solve(on_fail="return")
            c = time.process_time() - c0
            pt = rd(q, res.x)
            b = cert.bounds(q, res.x, res.y_dual, point_value=pt, repair=True)
            print(
                f"n={n} t{ti} {s} tol={tol} cpu={c:.2f} it={res.iterations} status={res.status} gap={b['relative_gap']:.2e} info={ {k: v for k, v in res.info.items() if 'iter' in k or 'newton' in k} }",
                flush=True,
            )
            if b["relative_gap"] <= 1e-6:
                break

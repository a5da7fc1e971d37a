# ruff: noqa: B007, B023, E402, E501
"""Prototype of issue 15 (run as recorded in newton_prototypes.txt; kept for the record, not a library module)."""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.ssnal import SsnalBackend
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n = int(sys.argv[1])
T = int(sys.argv[2])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
for ti in range(T):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    for cfg in sys.argv[3:]:
        atol, amax, warm = cfg.split(":")
        atol = float(atol)
        amax = int(amax)
        c0 = time.process_time()
        be = SsnalBackend(prob, tol=1e-7, admm_tol=atol, admm_max_iter=amax, time_limit=300)
        ws = None
        if warm == "w":
            val, z = rd.best_point(q, starts=128, rng=0)
            x = rd.dirac(z)
            ws = (x, np.zeros(prob.m), prob.b - prob.A @ x)
        raw = be.solve(q, warm_start=ws)
        c = time.process_time() - c0
        pt = rd(q, raw.x)
        b = cert.bounds(q, raw.x, raw.y, point_value=pt, repair=True)
        e = raw.extra
        print(
            f"n={n} t{ti} {cfg} cpu={c:.2f} status={raw.status} gap={b['relative_gap']:.2e} admm_it={e.get('admm_iterations')} newton={e.get('ssnal_newton')} cg={e.get('ssnal_cg')} outer={e.get('ssnal_outer')}",
            flush=True,
        )

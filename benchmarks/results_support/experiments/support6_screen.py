"""Issue 15 support6: the rough phase's screen (the lambda_min estimate of the shadow) from all negative
eigenpairs (``screen_cap=None``, e1ff240) or a filtered block capped at ``screen_cap``; end to end, one
process, the same tensors, CPU time, one BLAS thread. Needs commit 8609fe8 of branch support2 (the option
``screen_cap`` was removed in f02d22f). Usage: python support6_screen.py N TENSORS"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
from sosproj.sdp.lowrank_support import support_route

n, tensors = int(sys.argv[1]), int(sys.argv[2])
tol = 1e-7 if n <= 30 else 1e-6
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
for i in range(tensors):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", tol, 3)
    for sc in ([None, 4] if n > 48 else [None, 4, 8]):
        be = RankOneNewtonBackend(prob, tol=tol, **settings, screen_cap=sc)
        c0 = time.process_time()
        sol = be.solve()
        c = time.process_time() - c0
        e = sol.extra
        print(f"n={n} t{i} screen_cap {sc}: cpu {c:6.2f}s {sol.status} gap {e['cert_relative_gap']:.1e} "
              f"dr {e['dr_iterations']} (capped {e['dr_capped_iterations']}) newton {e['newton_steps']}", flush=True)

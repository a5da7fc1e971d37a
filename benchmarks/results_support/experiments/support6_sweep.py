"""Issue 15 support6: the Newton phase's stopping rule, one process, same tensors (CPU time, one BLAS thread).

Variants of ``solver="rankone_newton"``: ``rounds`` (check_updates=False, the e1ff240 rule: certify at the end
of each round), ``updates`` (certify every multiplier update, the new default), ``updates+tol`` (the same with
one round at a tighter first tolerance). Usage: python support6_sweep.py N TENSORS [TOL]
"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
from sosproj.sdp.lowrank_support import support_route

n, tensors = int(sys.argv[1]), int(sys.argv[2])
tol = float(sys.argv[3]) if len(sys.argv) > 3 else (1e-7 if n <= 30 else 1e-6)
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
variants = {"rounds": {"check_updates": False}, "updates": {},
            "updates+tol": {"newton_tol": 100 * tol}}
cpu: dict[str, list[float]] = {k: [] for k in variants}
for i in range(tensors):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", tol, 3)
    for name, opts in variants.items():
        c0 = time.process_time()
        sol = RankOneNewtonBackend(prob, tol=tol, **settings, **opts).solve()
        c = time.process_time() - c0
        cpu[name].append(c)
        e = sol.extra
        print(f"n={n} t{i} {name:12s} cpu {c:7.2f}s {sol.status} gap {e['cert_relative_gap']:.1e} "
              f"dr {e['dr_iterations']} newton {e['newton_steps']} rounds {e['newton_rounds']} "
              f"cg {e['newton_cg']} checks {e.get('newton_update_checks')}", flush=True)
print("medians: " + ", ".join(f"{k} {np.median(v):.2f}s" for k, v in cpu.items()))

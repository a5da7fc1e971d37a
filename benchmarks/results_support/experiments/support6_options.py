"""Issue 15 support6: ``solver="rankone_newton"`` with option variants on one tensor, one process, CPU time,
one BLAS thread. Usage: python support6_options.py N TENSOR VARIANT [VARIANT ...], a variant being
``default`` or comma-separated ``key=value`` (values parsed as Python literals)."""
import ast
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
from sosproj.sdp.lowrank_support import support_route

n, ti = int(sys.argv[1]), int(sys.argv[2])
tol = 1e-7 if n <= 30 else 1e-6
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", tol, 3)
for variant in sys.argv[3:]:
    opts = {} if variant == "default" else {k: ast.literal_eval(v) for k, v in
                                            (kv.split("=") for kv in variant.split(","))}
    be = RankOneNewtonBackend(prob, tol=tol, **settings, **opts)
    c0 = time.process_time()
    sol = be.solve()
    c = time.process_time() - c0
    e = sol.extra
    print(f"n={n} t{ti} {variant:30s} cpu {c:7.2f}s {sol.status} gap {e['cert_relative_gap']:.1e} "
          f"dr {e['dr_iterations']} (capped {e['dr_capped_iterations']}) newton {e['newton_steps']} "
          f"rounds {e['newton_rounds']} cg {e['newton_cg']} full {e['full_decompositions']}", flush=True)

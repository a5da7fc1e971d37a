"""Iterations and CPU seconds of one backend on one `dp`/`boundary` input (tol 1e-6).
Usage: python iters.py N REGIME BACKEND [JSON_OPTIONS]"""
import json
import sys
import time

sys.path.insert(0, "benchmarks")
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.solve import ConicSolver  # noqa: E402

n, regime, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]
opts = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
c0 = time.process_time()
res = ConicSolver(prob, name, tol=1e-6, **opts).solve(on_fail="return")
print(f"{n} {regime} {name} {opts} {res.status} it {res.iterations} res {res.primal_residual:.1e} "
      f"{res.dual_residual:.1e} {res.duality_gap:.1e} cpu {time.process_time() - c0:.2f}")

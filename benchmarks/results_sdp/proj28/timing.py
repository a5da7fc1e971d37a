"""One projection solve (unit ball, degree 4, k = 3) in this process, as one JSON line.

    python benchmarks/results_sdp/proj28/timing.py REGIME N SOLVER
SOLVER is a backend name ("admm", "lowrank") built directly, or "auto" through
`ConicSolver(..., "auto")` (the route `solver="auto"` takes). Which sosproj runs is PYTHONPATH's.
"""
import json
import os
import sys
import time

sys.path.insert(0, "benchmarks")
from moment_projection import make_input  # noqa: E402

import sosproj  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.solve import ConicSolver  # noqa: E402

regime, n, solver = sys.argv[1], int(sys.argv[2]), sys.argv[3]
R, ro, Y = make_input("unit_ball", n, regime)
load0 = os.getloadavg()[0]
prob = compile_projection(R, 3, Y, solver="admm")
c0, t0 = time.process_time(), time.perf_counter()
ws = ConicSolver(prob, solver, tol=1e-6, time_limit=float(os.environ.get("TL", "3000")))
res = ws.solve(on_fail="return")
cpu, wall = time.process_time() - c0, time.perf_counter() - t0
print(json.dumps({"regime": regime, "n": n, "solver": solver, "route": ws.name,
                  "tree": os.path.dirname(sosproj.__file__),
                  "status": res.status, "converged": res.converged, "iterations": res.iterations,
                  "cpu": round(cpu, 3), "wall": round(wall, 3), "objective": res.objective,
                  "pres": res.primal_residual, "dres": res.dual_residual, "gap": res.duality_gap,
                  "device": res.info.get("device"),
                  "load0": load0, "load1": os.getloadavg()[0]}), flush=True)

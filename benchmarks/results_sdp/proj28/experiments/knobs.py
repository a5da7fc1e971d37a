"""Iterations and CPU of projection backends with given options on one compiled `dp`/`boundary` input.

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python knobs.py N REGIME 'lowrank' 'lowrank:{"alpha": 1.6}' ...
"""
import ast
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.backends.admm import AdmmBackend  # noqa: E402
from sosproj.sdp.backends.lowrank import LowrankBackend  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402

n, regime = int(sys.argv[1]), sys.argv[2]
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
ref = None
for spec in sys.argv[3:]:
    name, opts = spec.split(":", 1) if ":" in spec else (spec, "{}")
    opts = ast.literal_eval(opts)
    cls = {"admm": AdmmBackend, "lowrank": LowrankBackend}.get(name)
    if cls is None:
        import importlib
        mod, attr = name.rsplit(".", 1)
        cls = getattr(importlib.import_module(mod), attr)
    c0, t0 = time.process_time(), time.perf_counter()
    be = cls(prob, tol=1e-6, **opts)
    sol = be.solve()
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    res = prob.residuals(sol.x, sol.y, sol.s) if hasattr(prob, "residuals") else None
    dx = None if ref is None else float(np.max(np.abs(sol.x - ref)))
    if ref is None:
        ref = sol.x
    print(json.dumps({"n": n, "regime": regime, "spec": spec, "status": sol.status, "iters": sol.iterations,
                      "cpu": round(cpu, 2), "wall": round(wall, 2), "load1": os.getloadavg()[0],
                      "res": None if res is None else {k: float(f"{v:.2e}") for k, v in res.items()}, "dx": dx,
                      "extra": {k: v for k, v in sol.extra.items()
                                if k.startswith(("admm_", "solver_", "face_", "side_calls"))}}),
          flush=True)

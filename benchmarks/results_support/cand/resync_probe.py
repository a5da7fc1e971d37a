"""Probe: the rough phase's exact re-synchronisation of its warm-started eigenpairs every ``resync`` calls.

At n = 100 (``n100_new.txt``) the rough phase's gap estimate fell at every exact re-synchronisation of the
capped stage's eigenpairs (every 50 Douglas-Rachford steps: 0.64 -> 0.46, 0.54 -> 0.33, 0.44 -> 0.20) and rose by
20-40% between them. This probe runs ``solver="rankone_newton"`` (defaults otherwise) with ``resync`` = 50 (the
default of ``NegativeEigenpairs``) and 25 on the rough phase's eigenpair solvers, interleaved, on the two n = 64
tensors of ``support_scale.py`` (one BLAS thread, target gap 1e-5).
Run: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/cand/resync_probe.py
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

import sosproj.sdp.backends.rankone_newton as rn
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

BaseNeg = rn.NegativeEigenpairs
n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
values = [int(v) for v in sys.argv[2:]] or [50, 25]
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
print(f"# resync_probe n={n} resync {values} load {os.getloadavg()[0]:.2f}", flush=True)
for t in range(2):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    for resync in values:
        class Neg(BaseNeg):
            def __init__(self, *a, _r=resync, **kw):
                kw.setdefault("resync", _r)
                super().__init__(*a, **kw)
        rn.NegativeEigenpairs = Neg
        _, settings = support_route(R, "rankone_newton", 1e-6, 3)
        t0, c0 = time.perf_counter(), time.process_time()
        res = ConicSolver(prob, "rankone_newton", tol=1e-6, time_limit=600, **settings).solve(on_fail="return")
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        info = res.info
        lo, up = info.get("cert_lower", np.nan), info.get("cert_upper", np.nan)
        gap = (up - lo) / max(1.0, abs(lo))
        print(f"n={n} t={t} resync={resync}: {res.status} wall {wall:.1f}s cpu {cpu:.1f}s "
              f"dr {info.get('dr_iterations')} (capped {info.get('dr_capped_iterations')}) "
              f"newton {info.get('newton_steps')} gap {gap:.1e} load {os.getloadavg()[0]:.2f}", flush=True)
rn.NegativeEigenpairs = BaseNeg

"""Fixed costs of ``solver="rankone_newton"`` outside its rough and Newton phases (issue 15, session 29, newton29).

Times, in one process, with the code on PYTHONPATH (CPU seconds, one BLAS thread): compiling the support problem,
``support_route`` (trace bound, interior point, rounding), the backend's construction (certifier set-up), the
candidate (``best_point`` + Dirac moments), the final certificate's lambda_min bound on a Dirac-point dual stand-in,
and ``ConicSolver``'s answer check (``_check``) on the candidate with the exact cone violations (``residuals``
without a budget, as before session 29) against the budgeted ones.

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD \
    python benchmarks/results_support/newton29/fixed_costs.py --n 64 [--y-cache PKL]
"""
import argparse
import os
import pickle
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver
from sosproj.sdp.support_bounds import lambda_min_lower

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--tensor", type=int, default=0)
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--y-cache", default=None, help="a newton_only.py rough-phase pickle: its dual vector is the y checked")
a = ap.parse_args()
T = {}


def tick(name, fn):
    c0 = time.process_time()
    out = fn()
    T[name] = time.process_time() - c0
    print(f"{name:28s} {T[name]:8.2f} s CPU | load {os.getloadavg()[0]:.2f}", flush=True)
    return out


R = tick("relaxation", lambda: MomentRelaxation(unit_ball(a.n), 4))
rng = np.random.default_rng([2026, a.n])
for _ in range(a.tensor + 1):
    W = rng.standard_normal((a.n, a.n, a.n))
prob = tick("compile_support", lambda: compile_support(R, 3, W))
_, settings = tick("support_route", lambda: support_route(R, "rankone_newton", a.tol, 3))
solver = tick("ConicSolver init", lambda: ConicSolver(prob, "rankone_newton", tol=a.tol, **settings))
be = solver._backend
q = prob.q
_, z = tick("candidate best_point", lambda: be.rounding.best_point(q, starts=128, rng=0))
x = tick("candidate dirac", lambda: be.rounding.dirac(z))
tick("origin moments", lambda: be._origin_moments(z))
if a.y_cache:
    with open(a.y_cache, "rb") as fh:
        y = pickle.load(fh)[0]
else:
    y = np.zeros(prob.m)
sl, d = be.certifier.psd[be.certifier.big]
low = tick("certifier.lower (1 bound)", lambda: be.certifier.lower(q, y))
s = prob.b - prob.A @ x
raw = RawSolution(x, y, s, "solved", "certified", 1, 0.0, 0.0, {"cert_relative_gap": 0.0, "cert_gap_tol": 1.0})
res_old = tick("residuals exact (old)", lambda: prob.residuals(x, y, s))
res_new = tick("_check (budgeted, new)", lambda: solver._check(raw, "rankone_newton"))
print("exact cone violations", res_old["cone_primal"], res_old["cone_dual"], "| check's",
      res_new.info["cone_violation_primal"], res_new.info["cone_violation_dual"], flush=True)
Z = np.eye(d)
tick("lambda_min_lower(order N)", lambda: lambda_min_lower(Z + 1e-3 * np.ones((d, d))))

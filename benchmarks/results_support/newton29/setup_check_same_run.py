"""Same-run, interleaved: the certifier's set-up (``ConicSolver`` construction) and the answer check (``_check`` on
a Dirac candidate with a PSD dual stand-in) and the candidate's first Dirac moments
of main's snapshot against this branch (issue 15, session 29, newton29).

Each measurement is a fresh child process (``PYTHONPATH`` = the snapshot or the worktree), A, B, A, B, ...; CPU
seconds inside the child, one BLAS thread.

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/results_support/newton29/setup_check_same_run.py \
    --n 64 --base /tmp/newton29_base --reps 3
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import sosproj; assert sosproj.__file__.startswith(__import__("os").environ["PYTHONPATH"]), sosproj.__file__
import json, sys, time
import numpy as np
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver
n = int(sys.argv[1])
R = MomentRelaxation(unit_ball(n), 4)
W = np.random.default_rng([2026, n]).standard_normal((n, n, n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
c0 = time.process_time()
solver = ConicSolver(prob, "rankone_newton", tol=1e-6, **settings)
c1 = time.process_time()
be = solver._backend
_, z = be.rounding.best_point(prob.q, starts=128, rng=0)
c4 = time.process_time()
x = be.rounding.dirac(z)
c5 = time.process_time()
s = prob.b - prob.A @ x
y = np.zeros(prob.m)
sl, d = be.certifier.psd[be.certifier.big]
y[sl] = -s[sl]                 # a PSD dual block stand-in (the candidate's moment matrix, sign-flipped in the check)
y[sl] = s[sl]
raw = RawSolution(x, y, s, "solved", "certified", 1, 0.0, 0.0, {"cert_relative_gap": 0.0, "cert_gap_tol": 1.0})
c2 = time.process_time()
res = solver._check(raw, "rankone_newton")
c3 = time.process_time()
print(json.dumps({"setup": c1 - c0, "check": c3 - c2, "dirac": c5 - c4, "converged": bool(res.converged),
                  "cone_p": res.info["cone_violation_primal"], "cone_d": res.info["cone_violation_dual"]}))
'''

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--base", required=True)
ap.add_argument("--reps", type=int, default=3)
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
rows = []
for rep in range(a.reps):
    for name, path in (("main", a.base), ("newton29", root)):
        env = dict(os.environ, PYTHONPATH=path, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", CHILD, str(a.n)], env=env, cwd="/tmp", capture_output=True,
                             text=True, check=True).stdout.strip().splitlines()[-1]
        row = {"n": a.n, "code": name, "rep": rep, **json.loads(out), "load": os.getloadavg()[0]}
        rows.append(row)
        print(json.dumps(row), flush=True)
for name in ("main", "newton29"):
    r = [x for x in rows if x["code"] == name]
    med = {k: sorted(x[k] for x in r)[len(r) // 2] for k in ("setup", "check", "dirac")}
    print(f"n={a.n} {name}: median setup {med['setup']:.2f} s, check {med['check']:.2f} s, first Dirac moments "
          f"{med['dirac']:.2f} s CPU", flush=True)

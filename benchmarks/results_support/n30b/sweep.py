"""Issue 15, session n30b: interleaved option sweep of ``solver="rankone_newton"`` (CPU per solve, 3 tensors of
``support_scale.py``'s seed, variants run A, B, C, A, B, C, ...).

Usage (from the worktree root; variants are JSON dicts of solver options, plus ``tangent_precond`` (the ssnal
option) and ``tmax`` (``partial_newton.TANGENT_MAX_NEGATIVE``; default: the library's)):

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/n30b/sweep.py \\
        30 '[{"sigma": 3}, {}, {"tangent_precond": false}]' 2
    # args: n, variants, repetitions (default 1), tensors (default 3)
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

import sosproj.sdp.backends.ssnal as ssnal
import sosproj.sdp.partial_newton as pn
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

n = int(sys.argv[1])
variants = json.loads(sys.argv[2])
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 1
n_tensors = int(sys.argv[4]) if len(sys.argv) > 4 else 3
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
probs = [compile_support(R, 3, rng.standard_normal((n, n, n))) for _ in range(n_tensors)]
_, settings = support_route(R, "rankone_newton", 1e-7, 3)
TMAX = pn.TANGENT_MAX_NEGATIVE


def go(prob, v):
    v = dict(v)
    ssnal.SsnalBackend.options["tangent_precond"] = v.pop("tangent_precond", True)
    pn.TANGENT_MAX_NEGATIVE = v.pop("tmax", TMAX)
    c0 = time.process_time()
    res = ConicSolver(prob, "rankone_newton", tol=1e-7, **{**settings, **v}).solve(on_fail="return")
    return time.process_time() - c0, res


if n < 40:
    go(probs[0], {})                                    # warm-up
out: dict[int, list[float]] = {i: [] for i in range(len(variants))}
for _ in range(reps):
    for t, prob in enumerate(probs):
        for i, v in enumerate(variants):
            c, res = go(prob, v)
            out[i].append(c)
            info = res.info
            print(t, v, f"{c:.3f}", res.status, info.get("dr_iterations"), info.get("newton_steps"),
                  info.get("newton_cg"), f"{info.get('cert_relative_gap'):.2e}", "load",
                  round(os.getloadavg()[0], 2), flush=True)
for i, times in out.items():
    print(variants[i], "median", round(float(np.median(times)), 3), [round(x, 3) for x in times])

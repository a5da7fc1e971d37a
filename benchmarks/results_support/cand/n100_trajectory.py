"""One full certified support solve (``solver="rankone_newton"``) with its certified-gap trajectory against time.

The tensor is ``benchmarks/support_scale.py``'s (``default_rng([2026, n])``, tensor ``--tensor``), the set
``PseudoMomentSet``'s compiled support problem of ``MomentRelaxation(unit_ball(n), 4)`` with ``k = 3``, the settings
``support_route(R, "rankone_newton", tol, 3)`` (what ``solver="auto"`` hands the backend, without its fallback).
Recorded (hooks only, the solver is unchanged): every certified upper bound the solver computes
(``SupportCertifier.lower``), every Cholesky verification (``SupportCertifier.verifies``) and every rough-phase
gap estimate (the ``NegativeEigenpairs`` screen at tolerance 1e-3: estimated upper bound
``t + trace_bound * max(0, -lambda_min)``, labelled ``screen@K`` with ``K`` the calls of the rough phase's
other eigenpair solvers so far, about one per Douglas-Rachford step), with seconds since the solve started.
``--old-candidate`` runs the candidate of main at d221599 (``TensorRounding.best_point`` with ``newton_starts=0``).

Run: see COMMAND.md in this folder.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import sosproj.sdp.backends.rankone_newton as rn
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding, support_route
from sosproj.sdp.solve import ConicSolver
from sosproj.sdp.support_bounds import SupportCertifier

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=100)
ap.add_argument("--tensor", type=int, default=0)
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--max-time", type=float, default=600.0)
ap.add_argument("--old-candidate", action="store_true")
ap.add_argument("--json", default=None)
args = ap.parse_args()

T0 = [None]
events: list[tuple[float, str, float]] = []


def now() -> float:
    return time.perf_counter() - T0[0] if T0[0] is not None else float("nan")


_lower, _verifies = SupportCertifier.lower, SupportCertifier.verifies


def lower(self, q, y):
    out = _lower(self, q, y)
    events.append((now(), "certified_upper", -float(out["lower"])))
    return out


def verifies(self, q, y, floor):
    ok = _verifies(self, q, y, floor)
    events.append((now(), "verifies" if ok else "verify_failed", -float(floor)))
    return ok


class Screen(rn.NegativeEigenpairs):
    created = [0]
    calls = [0]                                 # decompositions of the rough phase's other instances (~ steps)

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.tag = Screen.created[0]            # the rough phase's screen is the first one built
        Screen.created[0] += 1

    def __call__(self, Z, tol, *a, **kw):
        lam, V = super().__call__(Z, tol, *a, **kw)
        if self.tag != 0:
            Screen.calls[0] += 1
        if tol == 1e-3 and self.tag == 0:
            events.append((now(), f"screen@{Screen.calls[0]}", max(0.0, -float(lam[0])) if lam.size else 0.0))
        return lam, V


SupportCertifier.lower, SupportCertifier.verifies = lower, verifies
rn.NegativeEigenpairs = Screen
if args.old_candidate:
    _bp = TensorRounding.best_point

    def best_point(self, q, **kw):
        return _bp(self, q, **{**kw, "newton_starts": 0})
    TensorRounding.best_point = best_point

print(f"# n100_trajectory n={args.n} tensor {args.tensor} tol {args.tol} max_time {args.max_time} "
      f"old_candidate={args.old_candidate} OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')} "
      f"SOSPROJ_MEMORY_LIMIT={os.environ.get('SOSPROJ_MEMORY_LIMIT')} load {os.getloadavg()[0]:.2f}", flush=True)
t0 = time.perf_counter()
R = MomentRelaxation(unit_ball(args.n), 4)
rng = np.random.default_rng([2026, args.n])
for _ in range(args.tensor + 1):
    W = rng.standard_normal((args.n, args.n, args.n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", args.tol, 3)
print(f"build {time.perf_counter() - t0:.1f}s", flush=True)
T0[0] = time.perf_counter()
c0 = time.process_time()
ws = ConicSolver(prob, "rankone_newton", tol=args.tol, time_limit=args.max_time, **settings)
res = ws.solve(on_fail="return")
wall, cpu = time.perf_counter() - T0[0], time.process_time() - c0
info = res.info if isinstance(res.info, dict) else {}
pv = float(info.get("candidate", np.nan))
tb = settings["rounding"] and SupportCertifier(prob, settings["trace_bound"], settings["interior"]).trace_bound
dr_gap = 2e-2
t_level = pv + 0.5 * dr_gap * max(1.0, abs(pv))
print(f"status {res.status} wall {wall:.1f}s cpu {cpu:.1f}s candidate {pv:.6f} load {os.getloadavg()[0]:.2f}")
for k in ("dr_iterations", "dr_capped_iterations", "dr_status", "dr_capped_status", "newton_steps",
          "newton_rounds", "cert_lower", "cert_upper", "certified_relative_gap", "relative_gap"):
    if k in info:
        print(f"  {k}: {info[k]}")
print("# trajectory: seconds, event, value, relative gap to the candidate")
rows = []
for s, kind, v in events:
    ub = t_level + tb * v if kind.startswith("screen") else v
    gap = (ub - pv) / max(1.0, abs(ub))
    rows.append({"t": s, "event": kind, "upper": ub, "gap": gap})
    print(f"{s:8.1f} {kind:18s} {ub:.6f} {gap:.3e}")
if args.json:
    with open(args.json, "w") as fh:
        json.dump({"args": vars(args), "status": res.status, "wall": wall, "cpu": cpu, "candidate": pv,
                   "info": {k: v for k, v in info.items() if isinstance(v, (int, float, str))},
                   "trajectory": rows}, fh, indent=1, default=float)

"""Probe (issue 15, session 28, branch n100): ``solver="rankone_newton"`` with option variants, interleaved.

Each variant is ``NAME:JSON``; the JSON's keys are ``rankone_newton`` options (``dr_gap``, ``dr_cap``,
``dr_cap_gap``, ...) plus ``"_capped"``: keyword arguments of the capped stage's ``NegativeEigenpairs`` (for
instance ``{"degree": 8}`` or ``{"resync": 25}``; a hook on the class, the solver is otherwise unchanged)
and ``"_all"``:
keyword arguments of every Douglas-Rachford tracker of the rough phase (not its gap screens; for instance
``{"passes": 5}``).
Tensors are ``support_scale.py``'s (``default_rng([2026, n])``); one solve per (tensor, variant), in the order
tensor 0: v1, v2, ...; tensor 1: v1, v2, ... and, with ``--reverse``, each tensor's variants also in reverse
order afterwards. Run: see COMMAND.md in this folder.
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
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--tensors", type=int, nargs="+", default=[0, 1])
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--max-time", type=float, default=600.0)
ap.add_argument("--reverse", action="store_true")
ap.add_argument("--json", default=None)
ap.add_argument("--trace", action="store_true", help="record the rough phase's gap estimates against steps")
ap.add_argument("variants", nargs="+")
args = ap.parse_args()

BaseNeg = rn.NegativeEigenpairs
variants = []
for v in args.variants:
    name, _, js = v.partition(":")
    variants.append((name, json.loads(js) if js else {}))

print(f"# variants n={args.n} tensors {args.tensors} tol {args.tol} "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')} load {os.getloadavg()[0]:.2f}", flush=True)
R = MomentRelaxation(unit_ball(args.n), 4)
rng = np.random.default_rng([2026, args.n])
tensors = {}
for t in range(max(args.tensors) + 1):
    W = rng.standard_normal((args.n, args.n, args.n))
    if t in args.tensors:
        tensors[t] = W
rows = []
for t in args.tensors:
    prob = compile_support(R, 3, tensors[t])
    order = variants + (variants[::-1] if args.reverse else [])
    for name, opts in order:
        opts = dict(opts)
        capped_kw = opts.pop("_capped", {})
        all_kw = opts.pop("_all", {})

        events: list = []
        steps = [0]
        made = [0]
        T0 = [time.perf_counter()]

        class Neg(BaseNeg):
            def __init__(self, *a, _kw=capped_kw, _all=all_kw, made=made, **kw):
                if kw.get("cap") is not None and kw["cap"] > rn.SCREEN_CAP:
                    kw.update(_kw)
                if made[0] > 0 and kw.get("cap") != rn.SCREEN_CAP:
                    kw.update(_all)
                super().__init__(*a, **kw)
                # the rough phase builds its screen first; the full stage's screen has cap SCREEN_CAP
                self.tag = "screen" if made[0] == 0 else ("tight" if kw.get("cap") == rn.SCREEN_CAP else "dr")
                made[0] += 1

            def uncapped(self, _all=all_kw):
                out = super().uncapped()
                for key, val in _all.items():
                    setattr(out, key, val)
                out.__class__ = Neg
                out.tag = "dr"
                return out

            def __call__(self, M, rtol, steps=steps, events=events, T0=T0):
                if self.tag == "dr":
                    steps[0] += 1
                    e0 = self.exact_calls
                lam, V = super().__call__(M, rtol)
                if self.tag == "dr" and self.exact_calls > e0:
                    events.append((time.perf_counter() - T0[0], steps[0], "exact", float("nan")))
                elif args.trace and self.tag != "dr":
                    events.append((time.perf_counter() - T0[0], steps[0], self.tag,
                                   max(0.0, -float(lam[0])) if lam.size else 0.0))
                return lam, V

        rn.NegativeEigenpairs = Neg
        _, settings = support_route(R, "rankone_newton", args.tol, 3)
        settings.update(opts)
        load0 = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        T0[0] = t0
        res = ConicSolver(prob, "rankone_newton", tol=args.tol, time_limit=args.max_time,
                          **settings).solve(on_fail="return")
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rn.NegativeEigenpairs = BaseNeg
        info = res.info
        row = {"n": args.n, "tensor": t, "variant": name, "opts": dict(opts, _capped=capped_kw, _all=all_kw),
               "status": res.status, "wall": wall, "cpu": cpu, "load_start": load0, "load_end": os.getloadavg()[0],
               **{k: info.get(k) for k in ("dr_iterations", "dr_capped_iterations", "dr_status", "newton_steps",
                                            "newton_rounds", "newton_cg", "cert_relative_gap", "cert_upper",
                                            "cert_lower", "candidate")}}
        pv = float(info.get("candidate", np.nan))
        tl = pv + 0.5 * float(settings.get("dr_gap", 2e-2)) * max(1.0, abs(pv))
        tb = float(settings["trace_bound"])
        traj = []
        for s_, k_, kind, v in events:
            gap = float("nan")
            if kind != "exact":
                ub = tl + tb * v
                gap = (ub - pv) / max(1.0, abs(ub))
            traj.append((round(s_, 2), k_, kind, gap))
        row["trajectory"] = traj
        row["exact_steps"] = [k_ for _, k_, kind, _ in events if kind == "exact"]
        rows.append(row)
        print(f"n={args.n} t={t} {name:>10}: {res.status} wall {wall:7.1f}s cpu {cpu:7.1f}s "
              f"dr {row['dr_iterations']} (capped {row['dr_capped_iterations']}, {row['dr_status']}) "
              f"newton {row['newton_steps']} cg {row['newton_cg']} gap {row['cert_relative_gap']:.1e} "
              f"upper {row['cert_upper']} load {load0:.2f}-{row['load_end']:.2f} exact@{row['exact_steps']}",
              flush=True)
        if args.trace:
            print("   " + " ".join(f"{k_}:{kind[0]}:{g:.3f}@{s_:.0f}s" for s_, k_, kind, g in traj if kind != "exact"),
                  flush=True)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(rows, fh, indent=1)

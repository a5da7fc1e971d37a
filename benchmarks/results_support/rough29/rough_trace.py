"""The rough (Douglas-Rachford) phase of ``rankone_newton`` alone, instrumented (issue 15, session 29, rough29).

Runs the candidate and ``_rough_dual`` with the code on PYTHONPATH and prints the CPU of the rough phase, its
steps, and where the eigenpair time went per tracker (filter passes, exact decompositions, their counts), the
capped-stage estimates and the full-stage checks. ``--opt key=value`` sets backend options, ``--const
module.NAME=value`` module constants (``rankone_dual`` / ``rankone_newton``).

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD \
    python benchmarks/results_support/rough29/rough_trace.py --n 64 --tensor 0 [--opt dr_gap=0.05]
"""
import argparse
import collections
import os
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp import rankone_dual as rd
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.lowrank_support import support_route

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=64)
ap.add_argument("--tensor", type=int, default=0)
ap.add_argument("--tol", type=float, default=1e-6)
ap.add_argument("--opt", nargs="*", default=[])
ap.add_argument("--const", nargs="*", default=[])
ap.add_argument("--estimates", action="store_true", help="print every screen value (the capped stage's estimates)")
a = ap.parse_args()
for kv in a.const:
    k, v = kv.split("=", 1)
    mod, name = k.split(".")
    setattr({"rankone_dual": rd, "rankone_newton": rn}[mod], name, eval(v))
R = MomentRelaxation(unit_ball(a.n), 4)
rng = np.random.default_rng([2026, a.n])
for _ in range(a.tensor + 1):
    W = rng.standard_normal((a.n, a.n, a.n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", a.tol, 3)
for kv in a.opt:
    k, v = kv.split("=", 1)
    settings[k] = eval(v)

stats = collections.defaultdict(lambda: [0, 0.0])
names: dict[int, int] = {}   # tracker instances in order of first use


def timed(cls, name, label):
    f = getattr(cls, name)

    def g(self, *args, **kw):
        c = time.process_time()
        out = f(self, *args, **kw)
        key = f"{label}[cap={getattr(self, 'cap', '-')} #{names.setdefault(id(self), len(names))}]"
        if name == "_filter":
            key += " ok" if out is not None else (" rejected (widened)" if self._cut == 0.0 or self.X is None
                                                  else " rejected (residual)")
        s = stats[key]
        s[0] += 1
        s[1] += time.process_time() - c
        return out
    setattr(cls, name, g)


timed(rd.NegativeEigenpairs, "_filter", "filter")
timed(rd.NegativeEigenpairs, "_exact", "exact")
timed(rd.DualFeasibility, "affine", "affine")
verifies = rn.SupportCertifier.verifies


def v2(self, *args, **kw):
    c = time.process_time()
    out = verifies(self, *args, **kw)
    s = stats["cholesky check"]
    s[0] += 1
    s[1] += time.process_time() - c
    return out


rn.SupportCertifier.verifies = v2
call0 = rd.NegativeEigenpairs.__call__


def reason_call(self, M, rtol):
    pre_none = self.X is None
    resync = (self.calls + 1) % self.resync == 0
    ex = self.exact_calls
    out = call0(self, M, rtol)
    if self.exact_calls > ex:
        why = "no block" if pre_none else "resync" if resync else "rejected/widened"
        stats[f"exact why #{names.setdefault(id(self), len(names))}: {why}"][0] += 1
    return out


rd.NegativeEigenpairs.__call__ = reason_call
if a.estimates:
    call = rd.NegativeEigenpairs.__call__

    def traced_call(self, M, rtol):
        out = call(self, M, rtol)
        if names.get(id(self)) in (2, 4) or (self.cap == rn.SCREEN_CAP):
            print(f"   screen #{names.get(id(self))} cap={self.cap} lam_min {out[0][0] if out[0].size else 0.0:.6g}",
                  flush=True)
        return out
    rd.NegativeEigenpairs.__call__ = traced_call
be = rn.RankOneNewtonBackend(prob, tol=a.tol, **settings)
q = prob.q
_, z = be.rounding.best_point(q, starts=128, rng=0)
x = be.rounding.dirac(z)
pv = -float(q @ x)
c0, t0 = time.process_time(), time.perf_counter()
y, it, status, flat, capped, cstat = be._rough_dual(q, pv, None)
c1, t1 = time.process_time(), time.perf_counter()
low = be.certifier.lower(q, y)
rel = (-low["lower"] - pv) / max(1.0, abs(low["lower"]), abs(pv))
print(f"n={a.n} tensor {a.tensor} opt={a.opt} const={a.const}: rough cpu {c1 - c0:.2f}s wall {t1 - t0:.2f}s "
      f"steps {it} (capped {capped}, {cstat}) status {status} certified gap {rel:.3e} | load {os.getloadavg()[0]:.2f}",
      flush=True)
for k, (n, s) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
    print(f"   {k:40s} {n:5d} calls {s:7.2f}s")

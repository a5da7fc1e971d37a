"""Issue 15 support8 probe: why the rough phase's negative-eigenpair calls fail, per tracker (rankone_newton, n = 64).

Each filtered call is classed by how it ended: ``ok`` (accepted), ``resid`` (the residual test failed or the filter
interval was empty: another pass with the refined block), ``widen`` (the block grew), ``drop`` (the block was
dropped); ``exact`` is the exact partial decomposition (fallback after three failed passes, the first call, and a
resync every 50 calls). Times are CPU seconds per class. Trackers in order of first use: stage one (capped, cap
47), the gap-estimate screen, stage two (full projections).

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 [RF=0.25] python support8_rough_reasons.py N TENSOR [option=value ...]
(RF: the Douglas-Rachford eigenpair tolerance per unit step, set as ``rankone_dual.RTOL_FACTOR``: how the
session's probes ran on main at 66aacce; from commit bd09cc5 on pass ``dr_rtol_factor=...`` instead.)
"""
import os
import sys
import time
from collections import Counter

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp import rankone_dual as rd
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.lowrank_support import support_route

rd.RTOL_FACTOR = float(os.environ.get("RF", rd.RTOL_FACTOR))
rd.RTOL_MAX = float(os.environ.get("RM", rd.RTOL_MAX))
print("RTOL", rd.RTOL_FACTOR, rd.RTOL_MAX)
n, ti = int(sys.argv[1]), int(sys.argv[2])
opts = dict(a.split("=") for a in sys.argv[3:])
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
def _value(v):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


settings.update({k: _value(v) for k, v in opts.items()})
be = rn.RankOneNewtonBackend(prob, tol=1e-6, **settings)
q = prob.q
_, z = be.rounding.best_point(q, starts=128, rng=0)
pv = -float(q @ be.rounding.dirac(z))
log = []
of = rd.NegativeEigenpairs._filter
def filt(self, M, rtol):
    k0 = None if self.X is None else self.X.shape[1]
    c = time.process_time()
    out = of(self, M, rtol)
    why = "ok" if out is not None else ("drop" if self.X is None else ("widen" if self.X.shape[1] > k0 else "resid"))
    log.append((id(self), self.cap, k0, why, time.process_time() - c))
    return out
rd.NegativeEigenpairs._filter = filt
oe = rd.NegativeEigenpairs._exact


def ex(self, M, rtol):
    c = time.process_time()
    out = oe(self, M, rtol)
    log.append((id(self), self.cap, None, "exact", time.process_time() - c))
    return out


rd.NegativeEigenpairs._exact = ex
c0 = time.process_time()
y, steps, status, flat, capped, cstatus = be._rough_dual(q, pv, None)
print(f"rough {time.process_time()-c0:.1f}s cpu: {steps} steps ({capped} capped), {status}")
ids = []
for e in log:
    if e[0] not in ids:
        ids.append(e[0])
for i in ids:
    sel = [e for e in log if e[0] == i]
    cnt = Counter(e[3] for e in sel)
    tm = {w: round(sum(e[4] for e in sel if e[3] == w), 1) for w in cnt}
    print("tracker cap", sel[0][1], dict(cnt), tm)
print("rel", be.certifier and (be.certifier.lower(q, y)["lower"]))

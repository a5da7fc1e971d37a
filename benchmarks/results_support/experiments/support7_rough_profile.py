"""Issue 15 support7 probe: cProfile of rankone_newton's rough phase alone (stage times and hot spots).

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python support7_rough_profile.py N TENSOR [option=int ...]
"""
import cProfile
import pstats
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.rankone_dual import NegativeEigenpairs

n, ti = int(sys.argv[1]), int(sys.argv[2])
opts = dict(a.split("=") for a in sys.argv[3:])        # rankone_newton options (integers), e.g. dr_cap_check_every=10
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
settings.update({k: int(v) for k, v in opts.items()})
be = rn.RankOneNewtonBackend(prob, tol=1e-6, **settings)
q = prob.q
_, z = be.rounding.best_point(q, starts=128, rng=0)
pv = -float(q @ be.rounding.dirac(z))
counts: list = []
orig_call = NegativeEigenpairs.__call__


def call(self, M, rtol):
    c = time.process_time()
    e0 = self.exact_calls
    out = orig_call(self, M, rtol)
    counts.append((self.cap, out[0].size, self.exact_calls > e0, time.process_time() - c, id(self)))
    return out


NegativeEigenpairs.__call__ = call
prof = cProfile.Profile()
c0 = time.process_time()
prof.enable()
y, steps, status, flat, capped, cstatus = be._rough_dual(q, pv, None)
prof.disable()
print(f"rough phase {time.process_time() - c0:.1f}s cpu: {steps} steps ({capped} capped, {cstatus}), {status}")
names = {}
for c in counts:               # trackers in order of first use: stage-one steps, the screen, stage-two steps
    names.setdefault(c[4], ["stage one (capped)", "screen (all negative pairs of the shadow)",
                            "stage two (full)"][min(len(names), 2)])
for key, name in names.items():
    sel = [c for c in counts if c[4] == key]
    if sel:
        print(f"  {name}: calls {len(sel)}: exact {sum(c[2] for c in sel)}, "
              f"time {sum(c[3] for c in sel):.1f}s (exact {sum(c[3] for c in sel if c[2]):.1f}s), "
              f"negative count median {int(np.median([c[1] for c in sel]))} max {max(c[1] for c in sel)}")
pstats.Stats(prof).sort_stats("tottime").print_stats(14)

"""Issue 15 support6 prototype: Douglas-Rachford at the target dual value started from each Newton multiplier.

After every multiplier update of the Newton phase (monkeypatched ``ssnal.relative_residuals``), the moment
block Z and the other rows y_r of the multiplier are the start of ``DualFeasibility.run`` at
t = pv (1 + gap_tol / 2) for up to STEPS steps, with the certifier's one-Cholesky test every step; prints
the certified gap of the multiplier itself and the step at which the polished point certifies gap_tol.
Usage: python support6_dr_polish.py N TENSOR [STEPS]
"""
import sys
import time

import numpy as np

import sosproj.sdp.backends.ssnal as ssnal_mod
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.cones import svec_indices
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.rankone_dual import NegativeEigenpairs

n, ti = int(sys.argv[1]), int(sys.argv[2])
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 30
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
be = rn.RankOneNewtonBackend(prob, tol=1e-6, **settings)
feas = be.feas
i, j = svec_indices(feas.N, "scs")
orig = ssnal_mod.relative_residuals
state = {"pv": None}
c0 = time.process_time()


def split(y):
    Z = np.zeros((feas.N, feas.N))
    v = y[feas.big_slice] / feas._svec_scale
    Z[i, j] = v
    Z[j, i] = v
    return Z, y[feas.rest_rows].copy()


def patched(x, y, s, **kw):
    rel = orig(x, y, s, **kw)
    pv = state["pv"]
    c = time.process_time()
    low = be.certifier.lower(prob.q, y)
    gap = (-low["lower"] - pv) / max(1.0, abs(low["lower"]), abs(pv))
    t = pv + 0.5 * be.gap_tol * max(1.0, abs(pv))
    floor = -(pv + be.gap_tol * max(1.0, abs(pv)))
    c1 = time.process_time()
    run = feas.run(prob.q, t, max_iter=steps, check_every=1,
                   check=lambda Z, yr: be.certifier.verifies(prob.q, feas.dual_vector(t, Z, yr), floor),
                   relax=1.0, state=split(y), neg=NegativeEigenpairs(feas.N, method="filter"))
    print(f"  update: cpu {c - c0:7.2f}s max_rel {max(rel):.2e} cert_gap {gap:.2e} | DR from it: {run.status} "
          f"after {run.iterations} steps, {time.process_time() - c1:.2f}s", flush=True)
    return rel


ssnal_mod.relative_residuals = patched
orig_rough = be._rough_dual


def rough(q, pv, deadline):
    state["pv"] = pv
    t = time.process_time()
    out = orig_rough(q, pv, deadline)
    print(f"rough phase: {time.process_time() - t:.2f}s cpu, steps {out[1]}", flush=True)
    return out


be._rough_dual = rough
c0 = time.process_time()
sol = be.solve()
e = sol.extra
print(f"total {time.process_time() - c0:.2f}s cpu; status {sol.status}; gap {e['cert_relative_gap']:.2e}; "
      f"newton {e['newton_steps']} steps")

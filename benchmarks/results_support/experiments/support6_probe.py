"""Issue 15 support6 probe: the certified gap of every multiplier update inside the Newton phase.

Monkeypatches ``ssnal.relative_residuals`` (called once per augmented Lagrangian update) to also certify
the new multiplier with the solver's own certifier, and prints the phase times. Usage:
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python support6_probe.py N TENSOR [option=value ...]
"""
import sys
import time

import numpy as np

import sosproj.sdp.backends.ssnal as ssnal_mod
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.lowrank_support import support_route

n, ti = int(sys.argv[1]), int(sys.argv[2])
opts = {}
for a in sys.argv[3:]:
    k, v = a.split("=")
    opts[k] = None if v == "None" else (float(v) if v.replace(".", "").replace("e-", "").isdigit() else v)
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
settings.update(opts)
be = rn.RankOneNewtonBackend(prob, tol=1e-6, **settings)
orig = ssnal_mod.relative_residuals
log = []
state = {"pv": None}
c0 = time.process_time()


def patched(x, y, s, **kw):
    rel = orig(x, y, s, **kw)
    c = time.process_time()
    low = be.certifier.lower(prob.q, y)
    pv = state["pv"]
    gap = (-low["lower"] - pv) / max(1.0, abs(low["lower"]), abs(pv))
    log.append((c - c0, max(rel), gap, be._newton.face_block.partial_calls if be._newton else -1))
    print(f"  outer: cpu {c - c0:7.2f}s  max_rel {max(rel):.2e}  cert_gap {gap:.2e} "
          f"(certify {time.process_time() - c:.2f}s)", flush=True)
    return rel


ssnal_mod.relative_residuals = patched
orig_rough = be._rough_dual


def rough(q, pv, deadline):
    state["pv"] = pv
    t = time.process_time()
    out = orig_rough(q, pv, deadline)
    print(f"rough phase: {time.process_time() - t:.2f}s cpu, steps {out[1]} (capped {out[4]}, {out[5]})", flush=True)
    return out


be._rough_dual = rough
c0 = time.process_time()
sol = be.solve()
e = sol.extra
print(f"total {time.process_time() - c0:.2f}s cpu; status {sol.status}; gap {e['cert_relative_gap']:.2e}; "
      f"newton {e['newton_steps']} steps {e['newton_rounds']} rounds cg {e['newton_cg']}")

"""Issue 15 support7 probe: split the certified gap of every Newton multiplier update into its parts.

For each augmented Lagrangian update of ``rankone_newton``'s Newton phase (``ssnal.relative_residuals`` is
patched), with the repaired dual ``y'`` of :class:`SupportCertifier` (residual absorbed, min-norm, into the
moment block):

* value part    ``(b'y' - pv) / pv``: the dual objective's excess over the candidate ``pv``;
* absorb part   ``beta * max(0, -lambda_min(Z')) / pv``: what the absorbed residual costs;
* ``lam(Z)``: lambda_min of the multiplier's own moment block (before absorption; PSD by construction);
* ``r.x``: the residual along the Dirac point, ``(q + A'y) . xhat / pv`` (the part no absorption that keeps
  ``Z m(x*) = 0`` can avoid).

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python support7_split.py N TENSOR [option=value ...]
"""
import os
import sys
import time

import numpy as np
import scipy.linalg as sla

import sosproj.sdp.backends.ssnal as ssnal_mod
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.conic import smat
from sosproj.sdp.lowrank_support import support_route

n, ti = int(sys.argv[1]), int(sys.argv[2])
# rankone_newton options, e.g. dual_target=False (the runs with a third argument INNER_CAP, the subproblems'
# loosest dual residual, were made at commit 4724026 of branch support, where ssnal had that hook)
opts = {k: {"True": True, "False": False}.get(v, v) for k, v in (a.split("=") for a in sys.argv[3:])}
rng = np.random.default_rng([2026, n])
for _ in range(ti + 1):
    W = rng.standard_normal((n, n, n))
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
settings.update(opts)
be = rn.RankOneNewtonBackend(prob, tol=1e-6, **settings)
cert = be.certifier
orig = ssnal_mod.relative_residuals
state: dict = {"pv": None, "x": None}


def split(y: np.ndarray, tag: str) -> None:
    q = prob.q
    pv = state["pv"]
    Z, by, leftover, dres = cert._repaired(q, y)
    lam1 = float(sla.eigvalsh(Z, subset_by_index=[0, 0])[0])
    sl, d = cert.psd[cert.big]
    lam0 = float(sla.eigvalsh(smat(y[sl], d), subset_by_index=[0, 0])[0])
    r = q + cert.AT @ y
    rx = float(r @ state["x"])
    val = (by - pv) / abs(pv)
    ab = cert.trace_bound * max(0.0, -lam1) / abs(pv)
    print(f"  {tag}: value {val:+.2e} absorb {ab:.2e} leftover {leftover / abs(pv):.1e} total {val + ab:.2e} "
          f"| lam(Z) {lam0:+.1e} lam(Z') {lam1:+.2e} dres {dres:.1e} r.x/pv {rx / abs(pv):+.2e}", flush=True)


DUMP = os.environ.get("SPLIT_DUMP")      # a file prefix: save every multiplier (offline absorption tests)
dumped: list = []


def patched(x, y, s, **kw):
    rel = orig(x, y, s, **kw)
    if DUMP:
        dumped.append(y.copy())
    c = time.process_time()
    split(y, f"cpu {c - c0:6.1f}s rel {max(rel):.1e}")
    return rel


ssnal_mod.relative_residuals = patched
orig_rough = be._rough_dual


def rough(q, pv, deadline):
    state["pv"] = pv
    _, z = be.rounding.best_point(q, starts=128, rng=0)
    state["x"] = be.rounding.dirac(z)
    t = time.process_time()
    out = orig_rough(q, pv, deadline)
    print(f"rough phase: {time.process_time() - t:.2f}s cpu, steps {out[1]} (capped {out[4]}, {out[5]})", flush=True)
    split(out[0], "rough dual")
    return out


be._rough_dual = rough
c0 = time.process_time()
sol = be.solve()
e = sol.extra
print(f"total {time.process_time() - c0:.2f}s cpu; status {sol.status}; gap {e['cert_relative_gap']:.2e}; "
      f"newton {e['newton_steps']} steps {e['newton_rounds']} rounds cg {e['newton_cg']}")
if DUMP:
    np.savez(DUMP, q=prob.q, xhat=state["x"], pv=state["pv"], **{f"arr_{i}": v for i, v in enumerate(dumped)})

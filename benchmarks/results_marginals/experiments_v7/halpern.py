# ruff: noqa: UP031, E501, E401, E702, E701, B007
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""

import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
maxit = int(sys.argv[2])
tol = float(sys.argv[3])
rhof = float(sys.argv[4])
alpha = float(sys.argv[5])
mode = sys.argv[6]
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
rt = d["r"]
P = MarginalProjector(lay, w, tol=tol, max_iter=10)
E = P._empty
m = float(rt[E])
rho = P.rho0 * rhof
a_vec, b_vec = P._update_coefficients(P.w * rt, rho)


def T(s):
    r = lay.adjoint(np.abs(s))
    r *= b_vec
    r += a_vec
    r[E] = m
    Br = lay.forward(r)
    return s + alpha * (Br - np.maximum(s, 0)), Br


t0 = time.process_time()
s = np.maximum(lay.forward(rt), 0.0)
anchor = s.copy()
k = 0
res0 = None
res_prev = np.inf
restarts = 0
for it in range(1, maxit + 1):
    Ts, Br = T(s)
    res = float(np.linalg.norm(Ts - s))
    if mode == "plain":
        s = Ts
    else:
        if res0 is None:
            res0 = res
        # restart checks (Lu & Yang): sufficient / necessary decay or long epoch
        if res <= 0.2 * res0 or (res <= 0.8 * res0 and res > res_prev) or k >= 0.36 * it:
            anchor = s.copy()
            k = 0
            res0 = res
            restarts += 1
        s = ((k + 1) / (k + 2)) * Ts + (1 / (k + 2)) * anchor
        k += 1
    res_prev = res
    if it % 5 == 0:
        th = P._theta(Br, m)
        if it % 250 == 0:
            print(
                it,
                "theta %.4f res %.3g restarts %d cpu %.1f" % (th, res, restarts, time.process_time() - t0),
                flush=True,
            )
        if th <= tol:
            print("theta<=tol at", it, "cpu %.1f" % (time.process_time() - t0))
            break

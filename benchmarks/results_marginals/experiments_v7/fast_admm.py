# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
maxit = int(sys.argv[2])
tol = float(sys.argv[3])
rhof = float(sys.argv[4])
eta = float(sys.argv[5])
alpha_r = float(sys.argv[6])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
if "table" in sys.argv:
    w = np.array(lay.normal_diag_sets, float)
    w[lay.res_pos[()]] = 0
rt = d["r"]
P = MarginalProjector(lay, w, tol=tol, max_iter=10)
E = P._empty
m = float(rt[E])
wv = P.w.copy()
wv[E] = 0
inv_uni = 1.0 / (m * P._uniform)


def theta(t):
    q = t * inv_uni
    qm = q.min()
    return 0 if qm >= 0 else -qm / (1 - qm)


rho = P.rho0 * rhof
wr = P.w * rt
bvec = rho / (P.w + rho * P.d)
avec = wr * (bvec / rho)
t0 = time.process_time()
r = rt.copy()
z = np.maximum(lay.forward(r), 0)
u = np.zeros_like(z)
zh = z.copy()
uh = u.copy()
z_prev = z.copy()
u_prev = u.copy()
ak = 1.0
ck_prev = np.inf
restarts = 0
for it in range(1, maxit + 1):
    r = lay.adjoint(zh - uh)
    r *= bvec
    r += avec
    r[E] = m
    Br = lay.forward(r)
    Bra = alpha_r * Br + (1 - alpha_r) * zh
    z = np.maximum(Bra + uh, 0)
    u = uh + Bra - z
    ck = float(np.sum((u - uh) ** 2) + np.sum((z - zh) ** 2))
    if ck < eta * ck_prev:
        an = (1 + math.sqrt(1 + 4 * ak * ak)) / 2
        zh = z + ((ak - 1) / an) * (z - z_prev)
        uh = u + ((ak - 1) / an) * (u - u_prev)
        ak = an
        ck_prev = ck
        z_prev = z
        u_prev = u
    else:
        ak = 1.0
        restarts += 1
        zh = z_prev
        uh = u_prev  # restart from previous
        ck_prev = ck_prev / eta
        # keep z_prev,u_prev
    if it % 5 == 0:
        th = theta(Br)
        if it % 100 == 0:
            print(
                it, "theta %.4f restarts %d cpu %.1f" % (th, restarts, time.process_time() - t0), flush=True
            )
        if th <= tol:
            print("theta<=tol at", it, "cpu", time.process_time() - t0)
            break

# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import itertools
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
meth = sys.argv[2]
maxit = int(sys.argv[3])
tol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-3
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
if "table" in sys.argv:
    w = np.array(lay.normal_diag_sets, float)
    w[lay.res_pos[()]] = 0
P = MarginalProjector(lay, w, tol=tol, max_iter=maxit)
rt = d["r"]
E = P._empty
m = float(rt[E])
wv = P.w.copy()
winv = np.where(wv > 0, 1 / np.where(wv > 0, wv, 1), 0.0)
winv[E] = 0
b = lay.forward(rt)
inv_uni = 1.0 / (m * P._uniform)


def theta(t):
    q = t * inv_uni
    qm = q.min()
    return 0 if qm >= 0 else -qm / (1 - qm)


def prim(c):
    e = c - rt
    e[E] = 0
    return 0.5 * float(e @ (wv * e))


t0 = time.process_time()
if meth == "admm":
    c, info = P.solve(rt, on_fail="return")
    print("admm", info["iterations"], info["converged"], info["theta"], time.process_time() - t0)
    np.save(f + ".admm.npy", c)
    sys.exit()
# Jacobi diag of H per cell: sum_{A subset W, A != {}} scale^2 prod_{i in A}(1-1/n_i) / w_A

hdiag = np.empty(lay.tab_size)
for G in lay.tab_groups:
    for loc, ti in enumerate(G.members):
        W = lay.workload[ti]
        val = 0.0
        for k in range(1, len(W) + 1):
            for A in itertools.combinations(W, k):
                sc = 1.0 / math.prod(sizes[i] for i in W if i not in A)
                val += sc * sc * math.prod(1 - 1 / sizes[i] for i in A) / w[lay.res_pos[A]]
        per = math.prod(G.shape)
        hdiag[G.start + loc * per : G.start + (loc + 1) * per] = val


def Hmul(lam):
    g = lay.adjoint(lam)
    g *= winv
    return g, lay.forward(g)


ds = w[[i for i, s in enumerate(lay.residual_sets) if s]]
dd = np.array(lay.normal_diag_sets)[[i for i, s in enumerate(lay.residual_sets) if s]]
L = float(np.max(dd / ds))
print("L", L, "hdiag range", hdiag.min(), hdiag.max(), "cells", lay.tab_size)
prec = "jac" in sys.argv
D = 1 / hdiag if prec else np.full(lay.tab_size, 1 / L)
if prec:
    # power iteration for L of D^1/2 H D^1/2
    x = np.random.default_rng(0).standard_normal(lay.tab_size)
    for _ in range(30):
        y = np.sqrt(D) * Hmul(np.sqrt(D) * x)[1]
        lam_ = np.linalg.norm(y)
        x = y / lam_
    step = D / (lam_ * 1.02)
    print("precond L", lam_)
else:
    step = D
lam = np.zeros(lay.tab_size)
y = lam.copy()
tk = 1.0
restarts = 0
for it in range(1, maxit + 1):
    gy, ty = Hmul(y)
    ty += b  # gradient at y
    lam_new = np.maximum(y - step * ty, 0.0)
    if meth == "fista":
        # gradient restart
        if float(ty @ (lam_new - lam)) > 0:
            tk = 1.0
            restarts += 1
            tn = 1.0
        tn = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
        y = lam_new + ((tk - 1) / tn) * (lam_new - lam)
        tk = tn
    else:
        y = lam_new
    lam = lam_new
    if it % 25 == 0 or it == maxit:
        g, t = Hmul(lam)
        t += b
        c = rt + g
        c[E] = m
        th = theta(t)
        cm = (1 - th) * c
        cm[E] = m
        pm = prim(cm)
        dual = -(0.5 * float(g @ (wv * g)) + float(lam @ b))
        gap = pm - dual
        compl = float(lam @ np.maximum(t, 0))
        print(
            it,
            "theta %.3g gap %.4g relgap %.3g pm %.6g compl %.3g restarts %d cpu %.1f"
            % (th, gap, gap / max(pm, 1), pm, compl, restarts, time.process_time() - t0),
            flush=True,
        )
        if th <= tol and gap <= tol * max(pm, 1):
            break
np.save(f + "." + meth + ".npy", cm)
try:
    ca = np.load(f + ".admm.npy")
    e = ca - cm
    e[E] = 0
    print(
        "vs admm: W-dist^2/2",
        0.5 * float(e @ (wv * e)),
        "pm admm",
        prim(ca),
        "L1 tables",
        np.abs(lay.forward(ca) - lay.forward(cm)).sum() / (len(lay.workload) * m),
    )
except FileNotFoundError:
    pass

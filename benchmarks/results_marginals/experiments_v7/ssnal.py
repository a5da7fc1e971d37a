# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
maxouter = int(sys.argv[2])
tol = float(sys.argv[3])
sig0f = float(sys.argv[4])
sigmul = float(sys.argv[5])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
if "table" in sys.argv:
    w = np.array(lay.normal_diag_sets, float)
    w[lay.res_pos[()]] = 0
P = MarginalProjector(lay, w, tol=tol, max_iter=10)
rt = d["r"]
E = P._empty
m = float(rt[E])
wv = P.w.copy()
wv[E] = 0
winv = np.where(wv > 0, 1 / np.where(wv > 0, wv, 1), 0.0)
inv_uni = 1.0 / (m * P._uniform)


def theta(t):
    q = t * inv_uni
    qm = q.min()
    return 0 if qm >= 0 else -qm / (1 - qm)


def prim(c):
    e = c - rt
    e[E] = 0
    return 0.5 * float(e @ (wv * e))


nmv = [0]


def Bf(c):
    nmv[0] += 0.5
    return lay.forward(c)


def Bt(t):
    nmv[0] += 0.5
    g = lay.adjoint(t)
    g[E] = 0
    return g


# per-table frac -> per set d^J
tab_of_cell = np.empty(lay.tab_size, dtype=np.int64)
for G in lay.tab_groups:
    per = math.prod(G.shape)
    tab_of_cell[G.start : G.stop] = np.repeat(G.members, per)
ntab = len(lay.workload)
cells_per = np.bincount(tab_of_cell, minlength=ntab)


def dJ_sets(active):
    frac = np.bincount(tab_of_cell, weights=active.astype(float), minlength=ntab) / cells_per
    dj = np.zeros(len(lay.residual_sets))
    for g, pats in enumerate(lay._patterns):
        G = lay.tab_groups[g]
        for _keep, rg, loc, scale, _vs in pats:
            np.add.at(dj, lay.res_groups[rg].members[loc], scale * frac[G.members])
    return dj


dsets = np.array(lay.normal_diag_sets)
nz = [i for i, s in enumerate(lay.residual_sets) if s]
sigma = sig0f * float(np.median(w[nz] / dsets[nz]))
print("sigma0", sigma)
t0 = time.process_time()
c = rt.copy()
lam = np.zeros(lay.tab_size)
t = Bf(c)
totcg = 0
gnorm_ref = 1.0
for outer in range(1, maxouter + 1):
    for inner in range(1, 30):
        v = np.maximum(lam - sigma * t, 0.0)
        grad = wv * (c - rt) - Bt(v)
        grad[E] = 0
        gn = math.sqrt(float(grad @ (winv * grad)))
        act = v > 0
        # inner stop
        if inner > 1 and gn <= max(1e-2 * sigma**0, 0) * 1.0 * gnorm_ref:
            break
        if inner == 1:
            gnorm_ref = max(gn, 1e-300)
        Minv = 1.0 / (wv + sigma * lay.expand(dJ_sets(act)))
        Minv[E] = 0
        Dact = act.astype(float) * sigma
        # PCG
        x = np.zeros_like(c)
        rr = -grad
        z = Minv * rr
        p = z.copy()
        rz = float(rr @ z)
        r0 = math.sqrt(float(rr @ rr))
        for k in range(200):  # noqa: B007
            Ap = wv * p + Bt(Dact * Bf(p))
            Ap[E] = 0
            a = rz / float(p @ Ap)
            x += a * p
            rr -= a * Ap
            if math.sqrt(float(rr @ rr)) <= 0.05 * r0:
                break
            z = Minv * rr
            rzn = float(rr @ z)
            p = z + (rzn / rz) * p
            rz = rzn
        totcg += k + 1
        Bx = Bf(x)

        # line search on phi
        def phi(a, c=c, x=x, sigma=sigma, lam=lam, t=t, Bx=Bx):
            cc = c + a * x
            e = cc - rt
            e[E] = 0
            return 0.5 * float(e @ (wv * e)) + 0.5 / sigma * float(
                np.sum(np.maximum(lam - sigma * (t + a * Bx), 0) ** 2)
            )

        p0 = phi(0.0)
        dphi = float(grad @ x)
        a = 1.0
        while phi(a) > p0 + 1e-4 * a * dphi and a > 1e-6:
            a *= 0.5
        c += a * x
        t += a * Bx
    lam = np.maximum(lam - sigma * t, 0.0)
    th = theta(t)
    cm = (1 - th) * c
    cm[E] = m
    g = Bt(lam) * winv
    cl = rt + g
    pm = prim(cm)
    dual = -(0.5 * float(g @ (wv * g)) + float(lam @ lay.forward(rt)))
    gap = pm - dual
    print(
        outer,
        "sigma %.3g theta %.3g gap %.4g relgap %.3g pm %.7g inner %d cg %d matvecs %d cpu %.1f act %.3f"
        % (sigma, th, gap, gap / max(pm, 1), pm, inner, totcg, nmv[0], time.process_time() - t0, act.mean()),
        flush=True,
    )
    if th <= tol and gap <= tol * max(pm, 1):
        break
    sigma *= sigmul
np.save(f + ".ssnal.npy", cm)
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

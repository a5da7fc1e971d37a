"""Prototype: ADMM in s = z + u form with safeguarded Anderson (type II) acceleration."""

import json
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
iters = int(sys.argv[2])
mem = int(sys.argv[3])
rf = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
sg = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
adapt = int(sys.argv[6]) if len(sys.argv) > 6 else 1
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
k = 3
lay = ResidualLayout(sizes, all_k_way(len(sizes), k))
P = MarginalProjector(lay, d["w"], tol=1e-3, max_iter=iters)
rt = d["r"]
E = P._empty
total = float(rt[E])
wr = P.w * rt
alpha = float(sys.argv[8]) if len(sys.argv) > 8 else 1.6
pw = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
cells = np.array([np.prod(G.shape) for G in lay.tab_groups], float)
Dg = (cells / np.median(np.repeat(cells, [len(G.members) for G in lay.tab_groups]))) ** pw
Dvec = np.concatenate([np.full(G.stop - G.start, Dg[i]) for i, G in enumerate(lay.tab_groups)])
dd = np.zeros(len(lay.residual_sets))
for gi, pats in enumerate(lay._patterns):
    for _k, rg, loc, scale, _v in pats:
        np.add.at(dd, lay.res_groups[rg].members[loc], scale * Dg[gi] ** 2)
P.d = lay.expand(dd)
wS = P.w_sets
nz = wS > 0
rho = rf * 10 * float(np.median(wS[nz] / np.maximum(dd[nz], 1e-300)))
print("rho0", rho, "vs", P.rho0)
fwd0 = lay.forward
adj0 = lay.adjoint


class L:
    pass


lay2 = L()
lay2.forward = lambda r: Dvec * fwd0(r)
lay2.adjoint = lambda t: adj0(Dvec * t)
lay_orig = lay
lay = lay2
inv_uni = 1.0 / (total * P._uniform) / Dvec

den = P.w + rho * P.d
A = wr / den
Bc = rho / den


def T(s):
    g = lay.adjoint(np.abs(s))
    r = A + Bc * g
    r[E] = total
    Br = lay.forward(r)
    out = alpha * Br
    out += (1 - alpha) * np.maximum(s, 0)
    out += np.minimum(s, 0)
    return out, r, Br


def theta(Br):
    q = float(np.min(Br * inv_uni))
    return 0.0 if q >= 0 else -q / (1 - q)


s = np.maximum(lay.forward(rt), 0)
dS = []
dF = []
s_prev = f_prev = None
t0 = time.process_time()
nacc = nrej = 0
base = None  # (Ts, nf) at last plain point
aa_step = False
for it in range(1, iters + 1):
    Ts, r, Br = T(s)
    fres = Ts - s
    nf = float(np.linalg.norm(fres))
    if aa_step and nf > sg * base[1]:
        nrej += 1
        s = base[0]
        dS.clear()
        dF.clear()
        s_prev = None
        aa_step = False
        continue
    if aa_step:
        nacc += 1
    base = (Ts, nf)
    th = theta(Br)
    if it % 10 == 0 or th <= 1e-3:
        obj = 0.5 * float(np.sum(P.w * (r - rt) ** 2))
        print(
            json.dumps(
                dict(it=it, theta=th, nf=nf, obj=obj, acc=nacc, rej=nrej, cpu=round(time.process_time() - t0, 1))
            ),
            flush=True,
        )
    if th <= 1e-3:
        break
    if adapt and it % 5 == 0:
        z_old = np.maximum(s, 0)
        z_new = np.maximum(Ts, 0)
        u_new = np.minimum(Ts, 0)
        rp = float(np.linalg.norm(Br - z_new))
        nb = float(np.linalg.norm(Br))
        rd = rho * float(np.linalg.norm(lay.adjoint(z_new - z_old)))
        nu = float(np.linalg.norm(u_new))
        ratio = math.sqrt(max(rp / (1 + nb), 1e-300) / max(rd / (1 + rho * nu), 1e-300))
        if ratio > 3 or ratio < 1 / 3:
            ratio = min(max(ratio, 1e-2), 1e2)
            rho *= ratio
            den = P.w + rho * P.d
            A = wr / den
            Bc = rho / den
            s = np.maximum(Ts, 0) + np.minimum(Ts, 0) / ratio
            dS.clear()
            dF.clear()
            s_prev = None
            aa_step = False
            print("rho", rho, it, flush=True)
            continue
    if mem == 0:
        s = Ts
        continue
    if s_prev is not None:
        dS.append(s - s_prev)
        dF.append(fres - f_prev)
        if len(dS) > mem:
            dS.pop(0)
            dF.pop(0)
    s_prev = s
    f_prev = fres
    if not dS:
        s = Ts
        aa_step = False
        continue
    Fm = np.array(dF)  # mem x N
    G = Fm @ Fm.T
    b = Fm @ fres
    reg = 1e-10 * np.trace(G)
    gam = np.linalg.solve(G + reg * np.eye(len(dS)), b)
    s_new = Ts.copy()
    for j in range(len(dS)):
        s_new -= gam[j] * (dS[j] + dF[j])
    s = s_new
    aa_step = True
np.save(f.replace(".npz", f"_aa{mem}.npy"), r)

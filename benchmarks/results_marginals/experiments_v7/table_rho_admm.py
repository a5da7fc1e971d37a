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
pw = float(sys.argv[5])
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


dsets = np.array(lay.normal_diag_sets)
# per-table rho
ntab = len(lay.workload)
rw = np.array([w[lay.res_pos[W]] / dsets[lay.res_pos[W]] for W in lay.workload])
rw = (rw / np.median(rw)) ** pw
rho_tab = P.rho0 * rhof * rw
dS = np.zeros(len(lay.residual_sets))
for g, pats in enumerate(lay._patterns):
    G = lay.tab_groups[g]
    for _keep, rg, loc, scale, _vs in pats:
        np.add.at(dS, lay.res_groups[rg].members[loc], scale * rho_tab[G.members])
dSv = lay.expand(dS)
Scell = np.empty(lay.tab_size)
for G in lay.tab_groups:
    Scell[G.start : G.stop] = np.repeat(rho_tab[G.members], math.prod(G.shape))
den = P.w + dSv
avec = P.w * rt / den
bvec = 1.0 / den
t0 = time.process_time()
r = rt.copy()
s = np.maximum(lay.forward(r), 0)  # s = z + u
alpha = 1.6
for it in range(1, maxit + 1):
    v = np.abs(s) * Scell  # S(z-u)
    r = lay.adjoint(v)
    r *= bvec
    r += avec
    r[E] = m
    Br = lay.forward(r)
    s += alpha * (Br - np.maximum(s, 0))
    if it % 5 == 0:
        th = theta(Br)
        if it % 250 == 0:
            print(it, f"theta {th:.4f} cpu {time.process_time() - t0:.1f}", flush=True)
        if th <= tol:
            print("theta<=tol at", it, "cpu %.1f" % (time.process_time() - t0))
            break

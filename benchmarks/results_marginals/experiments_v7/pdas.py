# ruff: noqa: UP031, E501, E401, E702, E701, B007
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""

import itertools
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
K = int(sys.argv[2])
ncg = int(sys.argv[3])
outer = int(sys.argv[4])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
rt = d["r"]
P = MarginalProjector(lay, w, tol=1e-3, max_iter=K)
E = P._empty
m = float(rt[E])
wv = P.w.copy()
wv[E] = 0
winv = np.where(wv > 0, 1 / np.where(wv > 0, wv, 1), 0.0)
inv_uni = 1.0 / (m * P._uniform)
b = lay.forward(rt)


def theta(t):
    q = t * inv_uni
    qm = q.min()
    return 0 if qm >= 0 else -qm / (1 - qm)


t0 = time.process_time()
c, info, st = P.solve_state(rt, on_fail="return")
print("admm", K, "theta", info["theta"], "cpu %.1f" % (time.process_time() - t0))
lam = -st.rho * st.u
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


def H(x):
    g = lay.adjoint(x)
    g[E] = 0
    g *= winv
    return lay.forward(g)


t = b + H(lam)
print("start: theta(c(lam)) %.4g" % theta(t))
A = st.z <= 0
for o in range(outer):
    Af = A.astype(float)
    lam = lam * Af
    t = b + H(lam)
    rr = -t * Af  # residual of t_A = 0
    z = rr / hdiag
    p = z.copy()
    rz = float(rr @ z)
    r0 = math.sqrt(rr @ rr)
    for k in range(ncg):
        Ap = H(p) * Af
        a = rz / float(p @ Ap)
        lam += a * p
        rr -= a * Ap
        z = rr / hdiag
        rzn = float(rr @ z)
        p = z + (rzn / rz) * p
        rz = rzn
        if (k + 1) % 25 == 0:
            t = b + H(lam)
            print(
                " cg",
                k + 1,
                "res %.3g" % (math.sqrt(rr @ rr) / r0),
                "theta %.4g" % theta(t),
                "min lam_A %.3g" % lam[A].min(),
                "neg lam %d" % (lam[A] < 0).sum(),
                "t_I<0: %d" % ((t < -1e-3 / inv_uni) & ~A).sum(),
                "cpu %.1f" % (time.process_time() - t0),
                flush=True,
            )
    t = b + H(lam)
    newA = (lam - t * hdiag**-1 > 0) if False else ((A & (lam > 0)) | (~A & (t < 0)))
    print("outer", o, "theta %.4g" % theta(t), "changes", int((newA != A).sum()), flush=True)
    A = newA

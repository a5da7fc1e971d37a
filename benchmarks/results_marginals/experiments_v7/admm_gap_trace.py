# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
chunk = int(sys.argv[2])
nchunks = int(sys.argv[3])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
rt = d["r"]
P = MarginalProjector(lay, w, tol=1e-3, max_iter=chunk)
E = P._empty
m = float(rt[E])
wv = P.w.copy()
wv[E] = 0
winv = np.where(wv > 0, 1 / np.where(wv > 0, wv, 1), 0.0)
inv_uni = 1.0 / (m * P._uniform)
b = lay.forward(rt)


def prim(c):
    e = c - rt
    e[E] = 0
    return 0.5 * float(e @ (wv * e))


st = None
t0 = time.process_time()
tot = 0
tab_of_cell = np.empty(lay.tab_size, dtype=np.int64)
for G in lay.tab_groups:
    tab_of_cell[G.start : G.stop] = np.repeat(G.members, math.prod(G.shape))
for _k in range(nchunks):
    c, info, st = P.solve_state(rt, on_fail="return", warm_start=st)
    tot += info["iterations"]
    lam = -st.rho * st.u
    g = lay.adjoint(lam)
    g[E] = 0
    g *= winv
    dual = -(0.5 * float(g @ (wv * g)) + float(lam @ b))
    pm = prim(c)
    gap = pm - dual
    q = lay.forward(st.r) * inv_uni
    neg = q < -1e-3
    worst = np.argsort(q)[:5]
    print(
        tot,
        "theta %.4f relgap %.3g gap %.4g pm %.8g cells q<-1e-3: %d in %d tables; worst q %s tables %s; active frac %.3f cpu %.1f"
        % (
            info["theta"],
            gap / pm,
            gap,
            pm,
            neg.sum(),
            len(set(tab_of_cell[neg])),
            np.round(q[worst], 4),
            [lay.workload[tab_of_cell[i]] for i in worst[:3]],
            (st.z == 0).mean(),
            time.process_time() - t0,
        ),
        flush=True,
    )
    if info["converged"]:
        print("converged")
        break

import sys
import time

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
n_admm = int(sys.argv[2])
ncg = int(sys.argv[3])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
P = MarginalProjector(lay, d["w"], tol=1e-3, max_iter=n_admm)
rt = d["r"]
E = P._empty
m = float(rt[E])
t0 = time.process_time()
r, info, st = P.solve_state(rt, on_fail="return")
print("admm", info["iterations"], info["theta"], "cpu", time.process_time() - t0)
winv = np.where(P.w > 0, 1 / np.where(P.w > 0, P.w, 1), 0.0)
winv[E] = 0
Dc = 1.0 / (m * P._uniform)
lam0 = -st.rho * st.u  # >=0
act = (st.z <= 0) & (st.u < 0)
print("active", act.sum(), "of", act.size, "lam0 on inactive max", np.abs(lam0[~act]).max())
idx = np.flatnonzero(act)
cnt = [0]


def H(x):
    cnt[0] += 1
    t = np.zeros(lay.tab_size)
    t[idx] = x
    g = lay.adjoint(t)
    g[E] = 0
    return lay.forward(winv * g)[idx]  # forward of a vector with zero empty -> fine


rhs = -lay.forward(rt)[idx]
Hop = LinearOperator((idx.size, idx.size), matvec=H)
t1 = time.process_time()


def report(x, label):
    t = np.zeros(lay.tab_size)
    t[idx] = x
    g = lay.adjoint(t)
    g[E] = 0
    c = rt + winv * g
    c[E] = m
    q = lay.forward(c) * Dc
    qmin = q.min()
    th = 0 if qmin >= 0 else -qmin / (1 - qmin)
    qi = q[~act].min()
    qa = np.abs(q[act]).max()
    print(
        label,
        "matvecs",
        cnt[0],
        "theta",
        th,
        "inactive min q",
        qi,
        "active max|q|",
        qa,
        "lam min",
        x.min() * 1,
        "neg lam count",
        (x < 0).sum(),
        "obj",
        0.5 * float(np.sum(P.w * (c - rt) ** 2)),
        "cpu",
        time.process_time() - t1,
        flush=True,
    )
    return c


x = lam0[idx]
for k in range(ncg // 50):
    x, inf = cg(Hop, rhs, x0=x, maxiter=50, rtol=1e-12)
    c = report(x, f"cg{(k + 1) * 50}")

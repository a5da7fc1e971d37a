import sys
import time

import numpy as np
from scipy.optimize import Bounds, minimize

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
maxit = int(sys.argv[2])
pg = float(sys.argv[3])
mcor = int(sys.argv[4]) if len(sys.argv) > 4 else 10
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
P = MarginalProjector(lay, d["w"], tol=1e-3, max_iter=10)
rt = d["r"]
E = P._empty
m = float(rt[E])
winv = np.where(P.w > 0, 1 / np.where(P.w > 0, P.w, 1), 0.0)
winv[E] = 0
D = 1.0 / (m * P._uniform)
Bct = lay.forward(rt)
cnt = [0]
t0 = time.process_time()


def fg(lp):
    cnt[0] += 1
    lam = D * lp
    g = lay.adjoint(lam)
    g[E] = 0
    y = winv * g
    c = rt + y
    Bc = lay.forward(c)
    fval = 0.5 * float(y @ g) + float(lam @ Bct)
    return fval, D * Bc


def cb(xk):
    pass


res = minimize(
    fg,
    np.zeros(lay.tab_size),
    jac=True,
    method="L-BFGS-B",
    bounds=Bounds(0, np.inf),
    options=dict(maxiter=maxit, maxfun=maxit * 2, gtol=pg, ftol=0, maxcor=mcor),
)
lam = D * res.x
g = lay.adjoint(lam)
g[E] = 0
c = rt + winv * g
c[E] = m
q = lay.forward(c) * D / 1  # q = Bc/(m uni)
qmin = q.min()
th = 0 if qmin >= 0 else -qmin / (1 - qmin)
cm, th2 = P.make_nonnegative(c)
obj = 0.5 * float(np.sum(P.w * (c - rt) ** 2))
objm = 0.5 * float(np.sum(P.w * (cm - rt) ** 2))
print(
    res.message,
    "nit",
    res.nit,
    "nfev",
    cnt[0],
    "theta",
    th,
    th2,
    "obj",
    obj,
    "objmixed",
    objm,
    "cpu",
    time.process_time() - t0,
)
np.save(f.replace(".npz", "_lbfgs.npy"), cm)

"""Trace of the current MarginalProjector loop on a dumped measurement."""

import json
import math
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
iters = int(sys.argv[2])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])

lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
P = MarginalProjector(lay, d["w"], tol=1e-3, max_iter=iters)
rt = d["r"]
total = float(rt[P._empty])
wr = P.w * rt
rho = P.rho0
r = rt.copy()
z = np.maximum(lay.forward(r), 0)
u = np.zeros_like(z)
alpha = 1.6
t0 = time.process_time()
tf = ta = 0
for it in range(1, iters + 1):
    a = time.process_time()
    g = lay.adjoint(z - u)
    ta += time.process_time() - a
    r = (wr + rho * g) / (P.w + rho * P.d)
    r[P._empty] = total
    a = time.process_time()
    Br = lay.forward(r)
    tf += time.process_time() - a
    z_old = z
    Bh = alpha * Br + (1 - alpha) * z_old
    z = np.maximum(Bh + u, 0)
    u += Bh - z
    if it % 5:
        continue
    p2 = float(np.sum((Br - z) ** 2))
    dual = lay.adjoint(z - z_old)
    nb = float(np.sum(Br**2))
    rp = math.sqrt(p2)
    rd = rho * float(np.linalg.norm(dual))
    nu = float(np.linalg.norm(u))
    eps_p = 1e-3 * (1 + math.sqrt(nb))
    eps_d = 1e-3 * (1 + rho * nu)
    th = P._theta(Br, total)
    obj = 0.5 * float(np.sum(P.w * (r - rt) ** 2))
    if it % 25 == 0 or it <= 50:
        print(
            json.dumps(
                dict(
                    it=it,
                    theta=th,
                    rp=rp,
                    rd=rd,
                    eps_p=eps_p,
                    eps_d=eps_d,
                    rho=rho,
                    obj=obj,
                    negmass=float(-Br[Br < 0].sum()) / total,
                    cpu=time.process_time() - t0,
                    tf=tf,
                    ta=ta,
                )
            ),
            flush=True,
        )
    ratio = math.sqrt(max(rp / (1 + math.sqrt(nb)), 1e-300) / max(rd / (1 + rho * nu), 1e-300))
    if ratio > 3 or ratio < 1 / 3:
        ratio = min(max(ratio, 1e-2), 1e2)
        rho *= ratio
        u /= ratio
        print("rho ->", rho, "at", it, flush=True)
np.save(f.replace(".npz", f"_r{iters}.npy"), r)

# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector, ProjectorState

f = sys.argv[1]
maxit = int(sys.argv[2])
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
rt = d["r"]
lay2 = ResidualLayout(sizes, all_k_way(len(sizes), 2))
w2 = np.array([w[lay.res_pos[s]] for s in lay2.residual_sets])
r2 = np.zeros(lay2.res_size)


def copy_sets(dst_lay, dst, src_lay, src):
    for s in dst_lay.residual_sets:
        if s:
            dst_lay.residual(dst, s)[...] = src_lay.residual(src, s)
    dst[dst_lay.empty_pos] = src[src_lay.empty_pos]


copy_sets(lay2, r2, lay, rt)
t0 = time.process_time()
P2 = MarginalProjector(lay2, w2, tol=1e-3, max_iter=maxit)
c2, i2, st2 = P2.solve_state(r2, on_fail="return")
t1 = time.process_time()
print("2-way:", i2["iterations"], i2["converged"], "%.1f" % (t1 - t0))
r = rt.copy()
for s in lay2.residual_sets:
    if s:
        lay.residual(r, s)[...] = lay2.residual(st2.r, s)
P = MarginalProjector(lay, w, tol=1e-3, max_iter=maxit)
for mode in ["warm", "cold"]:
    t1 = time.process_time()
    ws = (
        ProjectorState(r=r, z=np.maximum(lay.forward(r), 0), u=np.zeros(lay.tab_size), rho=P.rho0)
        if mode == "warm"
        else None
    )
    c, info = P.solve(rt, on_fail="return", warm_start=ws)
    print(
        mode,
        info["iterations"],
        info["converged"],
        "{:.4f}".format(info["theta"]),
        "%.1f" % (time.process_time() - t1),
    )

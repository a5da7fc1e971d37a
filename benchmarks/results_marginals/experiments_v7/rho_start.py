# ruff: noqa: UP031, E501, E401, E702, E701, B007
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""

import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

d = np.load(sys.argv[1])
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
P0 = MarginalProjector(lay, d["w"])
for f in [float(x) for x in sys.argv[3].split(",")]:
    P = MarginalProjector(lay, d["w"], tol=1e-3, max_iter=int(sys.argv[2]), rho=f * P0.rho0)
    t = time.process_time()
    c, info = P.solve(d["r"], on_fail="return")
    print(
        f,
        info["iterations"],
        info["converged"],
        "%.4f" % info["theta"],
        "%.1f" % (time.process_time() - t),
        flush=True,
    )

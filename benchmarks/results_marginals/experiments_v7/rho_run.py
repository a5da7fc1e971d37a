# ruff: noqa: UP031, E501
"""Issue 14 lnnfast prototype (see README.md in this folder): run on a saved measurement of dump_measurement.py."""
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
rf = float(sys.argv[2])
total = int(sys.argv[3])
chunk = 250
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
w = d["w"]
rt = d["r"]
P0 = MarginalProjector(lay, w)
P = MarginalProjector(lay, w, tol=1e-3, max_iter=chunk, rho=rf * P0.rho0)
st = None
tot = 0
t0 = time.process_time()
while tot < total:
    c, info, st = P.solve_state(rt, on_fail="return", warm_start=st)
    tot += info["iterations"]
    print(
        tot,
        "theta {:.4f} rho/rho0 {:.3g} rp {:.3g} rd {:.3g} cpu {:.0f}".format(
            info["theta"],
            info["rho"] / P0.rho0,
            info["primal_residual"],
            info["dual_residual"],
            time.process_time() - t0,
        ),
        flush=True,
    )
    if info["converged"]:
        print("converged", tot)
        break

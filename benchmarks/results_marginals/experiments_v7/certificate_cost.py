"""Issue 14 lnnfast: CPU cost of MarginalProjector.certificate against one ADMM iteration, same run (median of 5)."""

import statistics
import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

d = np.load(sys.argv[1])
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
rt = d["r"]
P = MarginalProjector(lay, d["w"], tol=1e-3, max_iter=20)
c, info, st = P.solve_state(rt, on_fail="return")
lam = -st.rho * st.u
cert, it = [], []
for _ in range(5):
    t = time.process_time()
    P.certificate(rt, c, lam)
    cert.append(time.process_time() - t)
    t = time.process_time()
    P.solve_state(rt, on_fail="return", warm_start=st)
    it.append((time.process_time() - t - cert[-1]) / 20)   # solve includes one certificate
print(f"certificate {statistics.median(cert):.4f} s CPU, one ADMM iteration {statistics.median(it):.4f} s CPU, "
      f"ratio {statistics.median(cert) / statistics.median(it):.2f}")

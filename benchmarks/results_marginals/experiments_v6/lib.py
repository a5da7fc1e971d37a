import sys
import time

import numpy as np

from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import MarginalProjector

f = sys.argv[1]
it = int(sys.argv[2])
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
d = np.load(f)
sizes = tuple(int(s) for s in d["sizes"])
lay = ResidualLayout(sizes, all_k_way(len(sizes), 3))
t = time.process_time()
P = MarginalProjector(lay, d["w"], tol=tol, max_iter=it)
r, info = P.solve(d["r"], on_fail="return")
obj = 0.5 * float(np.sum(P.w * (r - d["r"]) ** 2))
print(
    {k: info[k] for k in ("iterations", "converged", "theta", "rho", "primal_residual", "dual_residual")},
    "obj",
    obj,
    "cpu",
    time.process_time() - t,
)
np.save(f.replace(".npz", f"_lib{it}.npy"), r)

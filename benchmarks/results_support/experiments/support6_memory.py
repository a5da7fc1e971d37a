"""Issue 15 support6: measured peak resident memory of ``solver="rankone_newton"`` against its estimate.

The peak is VmHWM of /proc/self/status after resetting it (``echo 5 > /proc/self/clear_refs``) once the
problem is compiled, minus the resident size then: the solver's own workspace. Usage:
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python support6_memory.py N [max_time]
"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.backends import estimate_memory
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver


def status(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    raise KeyError(key)


n = int(sys.argv[1])
max_time = float(sys.argv[2]) if len(sys.argv) > 2 else 600.0
R = MomentRelaxation(unit_ball(n), 4)
W = np.random.default_rng([2026, n]).standard_normal((n, n, n))
prob = compile_support(R, 3, W)
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
est = estimate_memory(prob.n, prob.cones, prob.A.nnz, 0, "rankone_newton")
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
base = status("VmRSS")
c0 = time.process_time()
res = ConicSolver(prob, "rankone_newton", tol=1e-6, time_limit=max_time, **settings).solve(on_fail="return")
peak = status("VmHWM") - base
N = R.psd_blocks[0].order
print(f"n={n} N={N} status {res.status} cpu {time.process_time() - c0:.1f}s: peak workspace {peak / 2**30:.3f} GiB "
      f"= {peak / (8 * N * N):.1f} dense N x N float64; estimate {est / 2**30:.3f} GiB = {est / (8 * N * N):.1f}; "
      f"estimate / peak {est / peak:.2f}")

"""Issue 15, session n30b: traced peak memory (dense N x N units) of one ``rankone_newton`` solve at n = 24 (the
memory test's case), with and without the Woodbury preconditioner, at the old and the new Newton penalty.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/n30b/peak_memory.py 24
"""

from __future__ import annotations

import sys
import tracemalloc

sys.path.insert(0, "tests")
from rankone_cases import tensor_case  # noqa: E402

import sosproj.sdp.backends.rankone_newton as rn  # noqa: E402
import sosproj.sdp.backends.ssnal as ssnal  # noqa: E402
from sosproj.sdp import compile_support  # noqa: E402
from sosproj.sdp.lowrank_support import support_route  # noqa: E402
from sosproj.sdp.solve import ConicSolver  # noqa: E402

n = int(sys.argv[1])
R, W, _ = tensor_case(n, seed=1)
prob = compile_support(R, 3, W)
N = R.psd_blocks[0].order
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
for flag, sig in ((False, 3.0), (True, 3.0), (False, 1000.0), (True, 1000.0)):
    ssnal.SsnalBackend.options["tangent_precond"] = flag
    rn.DEFAULT_SIGMA = sig
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    res = ConicSolver(prob, "rankone_newton", tol=1e-6, **settings).solve()
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    print(n, N, "tangent_precond", flag, "sigma", sig, res.status, res.info.get("newton_steps"),
          res.info.get("newton_cg"), "peak units", round(peak / (8 * N * N), 1))

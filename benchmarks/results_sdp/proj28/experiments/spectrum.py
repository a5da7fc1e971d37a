"""Spectra of a converged projection's PSD blocks: how many eigenvalues of the primal block S and of the
dual block Z exceed t times their largest, for a range of t (strict complementarity: the counts add to
the order). Usage: PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 python spectrum.py 30 dp 1e-8
"""
import sys

import numpy as np

sys.path.insert(0, "benchmarks")
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.backends.lowrank import LowrankBackend  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.cones import smat  # noqa: E402

n, regime, tol = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
be = LowrankBackend(prob, tol=tol)
sol = be.solve()
print(sol.status, sol.iterations, prob.cones)
for kind, sl, d in be.slices:
    if kind != "psd":
        continue
    ls = np.linalg.eigvalsh(smat(sol.s[sl], d))
    lz = np.linalg.eigvalsh(smat(sol.y[sl], d))
    ns, nz = np.abs(ls).max(), np.abs(lz).max()
    print("block", d, "|S|", ns, "|Z|", nz)
    for t in [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8]:
        ps, pz = int(np.sum(ls > t * ns)), int(np.sum(lz > t * nz))
        print(f"  t={t:.0e}: S>t {ps}  Z>t {pz}  sum {ps + pz}")

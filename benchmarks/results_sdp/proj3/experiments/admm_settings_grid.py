# ruff: noqa
# Recorded prototype (branch proj3, see README.md); kept verbatim as run.
import sys, time
sys.path.insert(0,"benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends.admm import AdmmBackend
n=int(sys.argv[1]); regime=sys.argv[2]
R, ro, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
import numpy as np
rho0 = float(np.median(prob.P.diagonal()[prob.P.diagonal()>0]))
grids = [{}, {"rho":2*rho0},{"rho":4*rho0},{"rho":8*rho0},{"anderson":20},{"anderson":20,"rho":4*rho0},{"anderson":15, "rho":2*rho0}]
if len(sys.argv)>3: grids = grids[:int(sys.argv[3])] + [eval(a) for a in sys.argv[4:]]
for opts in grids:
    be = AdmmBackend(prob, tol=1e-6, max_iter=3000, **opts)
    t=time.process_time(); s=be.solve()
    print(n, regime, opts, s.status, s.iterations, round(time.process_time()-t,2), round(s.extra["admm_rho"],2), s.extra["admm_rho_updates"], flush=True)

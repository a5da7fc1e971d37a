import cProfile, pstats, sys, time
import numpy as np
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver
n=int(sys.argv[1]); i=int(sys.argv[2]) if len(sys.argv)>2 else 0
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
Ws = [rng.standard_normal((n, n, n)) for _ in range(i+1)]
W=Ws[i]
prob = compile_support(R, 3, W)
_, st = support_route(R, "rankone_newton", 1e-7, 3)
pr=cProfile.Profile()
c0=time.process_time()
pr.enable()
res = ConicSolver(prob, "rankone_newton", tol=float(sys.argv[3]) if len(sys.argv)>3 else 1e-7, **st).solve(on_fail="return")
pr.disable()
print("cpu", time.process_time()-c0, res.status, res.info['cert_relative_gap'], res.info['dr_iterations'], res.info['newton_steps'])
pstats.Stats(pr).sort_stats("cumulative").print_stats(45)

import sys, time, numpy as np
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, rankone_dual
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver
n=int(sys.argv[1]); T=int(sys.argv[2]); tol=float(sys.argv[3])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n]); Ws = [rng.standard_normal((n, n, n)) for _ in range(T)]
for cfg in sys.argv[4:]:
    f, nt = cfg.split(":"); rankone_dual.RTOL_FACTOR_FILTER = float(f)
    for i,W in enumerate(Ws):
        prob = compile_support(R, 3, W)
        _, st = support_route(R, "rankone_newton", tol, 3)
        c=time.process_time()
        res = ConicSolver(prob, "rankone_newton", tol=tol, newton_tol=float(nt)*10*tol, **st).solve(on_fail="return")
        inf=res.info
        print(cfg, n, i, "cpu %.2f"%(time.process_time()-c), res.status, "gap %.1e"%inf['cert_relative_gap'], inf['dr_iterations'], inf['newton_steps'], inf['newton_cg'], inf['newton_rounds'], flush=True)

import sys, time, numpy as np
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, rankone_dual
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
NE = rankone_dual.NegativeEigenpairs
n=int(sys.argv[1]); T=int(sys.argv[2])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n]); Ws = [rng.standard_normal((n, n, n)) for _ in range(T)]
orig_init = NE.__init__
for cfg in sys.argv[3:]:
    passes, rf, deg = cfg.split(":")
    def init(self, d, extra=6, resync=50, passes_=3, method="krylov", degree=None, passes=None):
        orig_init(self, d, extra=extra, resync=resync, passes=int(cfg.split(":")[0]) if method=="filter" else (passes or 3), method=method, degree=degree)
    NE.__init__ = init
    rankone_dual.RTOL_FACTOR = float(rf); rankone_dual.FILTER_DEGREE = int(deg)
    for W in Ws:
        prob = compile_support(R, 3, W)
        _, st = support_route(R, "rankone_newton", 1e-6, 3)
        b = RankOneNewtonBackend(prob, tol=1e-6, **st)
        q=prob.q
        _, z = b.rounding.best_point(q, starts=128, rng=0); x=b.rounding.dirac(z); pv=-float(q@x)
        c=time.process_time()
        y, it, stt, fb = b._rough_dual(q, pv, None)
        print(cfg, "rough", it, stt, round(time.process_time()-c,2), flush=True)

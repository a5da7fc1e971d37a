import sys, time, numpy as np
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, rankone_dual
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
NE = rankone_dual.NegativeEigenpairs
log = []
of, oe = NE._filter, NE._exact
def f(self, M, rtol):
    k = self.X.shape[1]; c=time.process_time()
    r = of(self, M, rtol)
    reason = "ok" if r is not None else ("widen/reset" if (self.X is None or self.X.shape[1] != k and self._cut == 0.0) else "resid")
    log.append(("filter", id(self), k, reason, time.process_time()-c, rtol))
    return r
def e(self, M, rtol=0.0):
    c=time.process_time(); r = oe(self, M, rtol); log.append(("exact", id(self), r[0].size, "", time.process_time()-c, rtol)); return r
NE._filter, NE._exact = f, e
n=int(sys.argv[1])
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n]); W = rng.standard_normal((n, n, n))
prob = compile_support(R, 3, W)
_, st = support_route(R, "rankone_newton", 1e-6, 3)
b = RankOneNewtonBackend(prob, tol=1e-6, **st)
from sosproj.sdp.lowrank_support import TensorRounding
q=prob.q
_, z = b.rounding.best_point(q, starts=128, rng=0); x=b.rounding.dirac(z); pv=-float(q@x)
c=time.process_time()
y, it, stt, fb = b._rough_dual(q, pv, None)
print("rough", it, stt, time.process_time()-c)
from collections import Counter
ids = Counter(l[1] for l in log)
for i,_ in ids.items():
    L=[l for l in log if l[1]==i]
    cnt=Counter((l[0],l[3]) for l in L)
    print("tracker", len(L), {k:(v, round(sum(l[4] for l in L if (l[0],l[3])==k),2)) for k,v in cnt.items()})
main=[l for l in log if l[1]==max(ids, key=ids.get)]
print(" ".join(f"{l[0][0]}{l[2]}{l[3][:1]}" for l in main[:400]))

import time, numpy as np, scipy.linalg as sla, scipy.sparse as sp
import sosproj.sdp.backends.ssnal as ss
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver
n=30; R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n]); W=rng.standard_normal((n,n,n))
prob = compile_support(R, 3, W); _, st = support_route(R, "rankone_newton", 1e-7, 3)
cap={}
orig=ss.SsnalBackend._newton_dir
def nd(self, grad, active, rtol):
    cap["self"]=self; cap["active"]=active.copy()
    return orig(self, grad, active, rtol)
ss.SsnalBackend._newton_dir=nd
ws=ConicSolver(prob,"rankone_newton",tol=1e-7,**st); res=ws.solve(on_fail="return")
s=cap["self"]; active=cap["active"]; v=rng.standard_normal(s.A.shape[1])
eps=1e-10
def hess(v): return s.p_diag * v + s.AT @ (s.rv * s._jac(s.A @ v, active)) + eps * v
def tm(f,reps=100):
    t=time.perf_counter()
    for _ in range(reps): out=f()
    return (time.perf_counter()-t)/reps*1e3
h0=hess(v)
print("hess %.3f" % tm(lambda: hess(v)))
# matrix form
blk=s.face_block; sl=s.blocks[0][0] if s.blocks[0][1] is blk else [b for b in s.blocks if b[1] is blk][0][0]
AM=s.A[sl]; N=blk.d
assert np.all(np.diff(AM.indptr)==1)
cols=AM.indices; a=AM.data
rvM=s.rv[sl]
# matrix maps
pos=blk._gather  # svec index for each (i,j)
cls2d=cols[pos]; coef2d=(a/blk.proj.scale)[pos]   # A_M v -> svec entry a*v ; matrix entry = a*v/scale
rvc2d=rvM[pos]
# diag term: A_M^T (rv A_M v) = sum rows rv a^2 v[col]
dM=np.bincount(cols, weights=rvM*a*a, minlength=s.A.shape[1])
rest=np.setdiff1d(np.arange(s.A.shape[0]), np.arange(sl.start, sl.stop))
Ar=s.A[rest]; ArT=sp.csr_matrix(Ar.T); rvr=s.rv[rest]; actr=active[rest]
# rest jac: zero/nonneg rows & loc PSD block via s._jac on a full-size vector is generic; emulate: use other blocks
others=[(bsl,b) for bsl,b in s.blocks if b is not blk]
def jac_rest(hr_full):
    out=np.where(active, hr_full, 0.0)
    for bsl,b in others: out[bsl]=b.jacobian(hr_full[bsl])
    return out
wc=(coef2d*rvc2d)  # weight for class sums: A_M^T(rv*svec(P)) = sum_{ij} a/scale... check numerically
def hess2(v):
    H=np.take(v, cls2d)*coef2d
    Qn=blk.Qn; k=Qn.shape[1]
    HQ=H@Qn; G=Qn.T@HQ; Rr=HQ-Qn@G
    C=np.empty_like(Rr)
    for j,(_,c) in enumerate(blk._resolvents()):
        C[:,j]=sla.cho_solve((c,True), Rr[:,j], check_finite=False)
    C-=Qn@(Qn.T@C)
    U=0.5*(Qn@G)+C*(-blk.lam_n)
    P=U@Qn.T
    corr=np.bincount(cls2d.ravel(), weights=(P*wc).ravel(), minlength=v.size)
    out=s.p_diag*v + eps*v + dM*v - 2*corr
    # rest rows (full-size A@v only on rest rows)
    Av=np.zeros(s.A.shape[0]); Av[rest]=Ar@v
    jr=jac_rest(Av)
    out+=ArT@(rvr*jr[rest])
    return out
h1=hess2(v)
print("rel err", np.abs(h1-h0).max()/np.abs(h0).max())
print("hess2 %.3f" % tm(lambda: hess2(v)))

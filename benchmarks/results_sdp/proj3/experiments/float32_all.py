# ruff: noqa
# Recorded prototype (branch proj3, see README.md); kept verbatim as run.
import sys, time
import numpy as np, scipy.linalg as sla
sys.path.insert(0,"benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends.admm import AdmmBackend
from sosproj.sdp.cones import PSDProjector, _psd_from_eigh
class P32(PSDProjector):
    def __call__(self, v):
        d=self.d; M=self.buf; vals=v/self.scale; M.flat[self.lower]=vals; M.flat[self.upper]=vals
        lam,V=sla.eigh(M.astype(np.float32),driver="evd",check_finite=False)
        lam=lam.astype(float); V=V.astype(float)
        neg=int(np.searchsorted(lam,0.0))
        return _psd_from_eigh(M,lam,V,neg).flat[self.lower]*self.scale
n=int(sys.argv[1]); regime=sys.argv[2]
R, ro, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
for mode in ["64","32"]:
    be = AdmmBackend(prob, tol=1e-6, max_iter=int(sys.argv[3]) if len(sys.argv)>3 else None, verbose=False)
    if mode=="32":
        d=max(be.psd_proj); be.psd_proj[d]=P32(d)
    t=time.process_time(); s=be.solve()
    print(mode, s.status, s.iterations, round(time.process_time()-t,2), {k:v for k,v in s.extra.items() if k.startswith("solver")})

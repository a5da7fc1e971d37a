# ruff: noqa
# Cost of the pieces of one projection (README section 5).
import time, numpy as np, scipy.linalg as sla
from scipy.linalg import blas
from sosproj.sdp.cones import PSDProjector
def T(f, r=3):
    best = 1e9
    for _ in range(r):
        t = time.process_time(); f(); best = min(best, time.process_time() - t)
    return best
for d in (496, 1326):
    rng = np.random.default_rng(0)
    G = rng.standard_normal((d, d)); M = (G + G.T) / 2
    p = PSDProjector(d); v = M.flat[p.lower] * p.scale
    k = d // 2
    lam, V = np.linalg.eigh(M)
    Vn = V[:, :k].copy(); ln = lam[:k]
    def fill():
        vals = v / p.scale; p.buf.flat[p.lower] = vals; p.buf.flat[p.upper] = vals
    def gemm(): return M - (Vn * ln) @ Vn.T
    def syrk():
        W = Vn * np.sqrt(-np.minimum(ln, 0))
        C = blas.dsyrk(1.0, W, beta=1.0, c=M.copy(order="F"), lower=1, overwrite_c=1)
        return C
    def syrk_nocopy():
        W = Vn * np.sqrt(-np.minimum(ln, 0))
        return blas.dsyrk(1.0, W, lower=1)
    def extract(): return M.flat[p.lower] * p.scale
    M32 = M.astype(np.float32)
    print(d, "fill", T(fill), "evd64", T(lambda: sla.eigh(M, driver="evd", check_finite=False)),
          "evd32", T(lambda: sla.eigh(M32, driver="evd", check_finite=False)),
          "evd64ow", T(lambda: sla.eigh(M.copy(), driver="evd", check_finite=False, overwrite_a=True)),
          "gemm", T(gemm), "syrk", T(syrk), "syrk_nc", T(syrk_nocopy), "extract", T(extract), flush=True)

# ruff: noqa
# Prototype: eigh with the back-transformation applied to one side's eigenvectors only.
import time, numpy as np, scipy.linalg as sla
from scipy.linalg import lapack

def side_eigh(M, k, top):
    """k smallest (top=False) or largest eigenpairs: sytrd + stevd + ormqr on k columns."""
    d = M.shape[0]
    lw = int(lapack.dsytrd_lwork(d, lower=1)[0]) if M.dtype == np.float64 else int(lapack.ssytrd_lwork(d, lower=1)[0])
    sytrd = lapack.dsytrd if M.dtype == np.float64 else lapack.ssytrd
    stevd = lapack.dstevd if M.dtype == np.float64 else lapack.sstevd
    ormqr = lapack.dormqr if M.dtype == np.float64 else lapack.sormqr
    c, dd, e, tau, info = sytrd(M, lower=1, lwork=lw)
    assert info == 0
    w, Z, info = stevd(dd, e, compute_v=1)
    assert info == 0
    sel = slice(d - k, d) if top else slice(0, k)
    Zk = np.zeros((d, k), dtype=M.dtype, order="F")
    Zk[:, :] = Z[:, sel]
    # Q = H(1)..H(d-1) with v_i stored in c[i+1:, i] (lower): Q applied to rows 1: of Zk
    a = np.asfortranarray(c[1:, : d - 1])
    sub = np.asfortranarray(Zk[1:, :])
    res = ormqr("L", "N", a, tau, sub, lwork=max(1, 64 * k))
    cq, info = res[0], res[-1]
    assert info == 0, info
    Zk[1:, :] = cq
    return w[sel], Zk

def T(f, r=2):
    best = 1e9
    for _ in range(r):
        t = time.process_time(); out = f(); best = min(best, time.process_time() - t)
    return best, out

for d in (496, 1326):
    rng = np.random.default_rng(0); G = rng.standard_normal((d, d)); M = (G + G.T) / 2
    lam, V = np.linalg.eigh(M)
    for frac in (0.27, 0.5):
        k = int(frac * d)
        t1, _ = T(lambda: sla.eigh(M, driver="evd", check_finite=False))
        t2, (w, Z) = T(lambda: side_eigh(M, k, False))
        P1 = (V[:, :k] * lam[:k]) @ V[:, :k].T
        P2 = (Z * w) @ Z.T
        M32 = M.astype(np.float32)
        t3, _ = T(lambda: sla.eigh(M32, driver="evd", check_finite=False))
        t4, (w4, Z4) = T(lambda: side_eigh(M32, k, True))
        print(d, frac, f"evd {t1:.4f} side {t2:.4f} ratio {t2/t1:.2f} | f32 evd {t3:.4f} side {t4:.4f} ratio {t4/t3:.2f}",
              "err", np.abs(w - lam[:k]).max(), np.abs(P1 - P2).max(), "orth", np.abs(Z.T @ Z - np.eye(k)).max(),
              "f32 err", np.abs(w4 - lam[d-k:]).max(), flush=True)

print("small sides: evr subset (MRRR) against sytrd + stevd + ormqr on k columns")
for dt in (np.float64, np.float32):
    for d in (496, 1326):
        rng = np.random.default_rng(0); G = rng.standard_normal((d, d)); M = ((G + G.T) / 2).astype(dt)
        t1, _ = T(lambda: sla.eigh(M, driver="evd", check_finite=False))
        print(dt.__name__, d, f"evd {t1:.4f}")
        for frac in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5):
            k = max(1, int(frac * d))
            tr, _ = T(lambda: sla.eigh(M, driver="evr", subset_by_index=[0, k - 1], check_finite=False))
            tn, _ = T(lambda: side_eigh(M, k, False))
            print(f"  k/d {frac}: evr subset {tr / t1:.2f}  new {tn / t1:.2f} (of evd)", flush=True)

"""Issue 15 support7 offline test: other ways to absorb the dual residual of a Newton multiplier.

Reads the multipliers saved by ``SPLIT_DUMP=FILE python support7_split.py N T`` and, for each, compares the
certified gap of the certifier's min-norm absorption with a Jacobi-weighted one
(``dZ_ij = c_alpha sqrt(Z_ii Z_jj)``: the correction goes where the diagonal of Z is large).

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python support7_absorb.py N FILE.npz
"""
import sys

import numpy as np
import scipy.linalg as sla

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.conic import smat, svec
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.support_bounds import SupportCertifier

n = int(sys.argv[1])
data = np.load(sys.argv[2])
R = MomentRelaxation(unit_ball(n), 4)
q = data["q"]
pv = float(data["pv"])
prob = compile_support(R, 3, np.zeros((n, n, n)))
_, settings = support_route(R, "rankone_newton", 1e-6, 3)
cert = SupportCertifier(prob, settings["trace_bound"], settings["interior"])
sl, d = cert.psd[cert.big]
ones = svec(np.ones((d, d)))
rows_local = cert.fix_rows - sl.start
vals = cert.A.data[cert.A.indptr[cert.fix_rows]]


def gap_of(yp):
    Z = smat(yp[sl], d)
    r2 = q + cert.AT @ yp
    lam = float(sla.eigvalsh(Z, subset_by_index=[0, 0], check_finite=False)[0])
    by = float(cert.b @ yp)
    return (by + cert.trace_bound * max(0.0, -lam) + float(np.sum(np.abs(r2))) * cert.trace_bound - pv) / abs(pv), lam


keys = sorted((k for k in data.files if k.startswith("arr_")), key=lambda k: int(k[4:]))
for k in keys:
    y = data[k]
    low = cert.lower(q, y)
    base = (-low["lower"] - pv) / abs(pv)
    r = q + cert.AT @ y
    Z = smat(y[sl], d)
    dg = np.sqrt(np.maximum(np.diag(Z), 1e-300))
    w = (svec(np.outer(dg, dg)) / ones)[rows_local]
    den = np.zeros(prob.n)
    np.add.at(den, cert.fix_cols, vals ** 2 * w)
    yp = y.copy()
    np.subtract.at(yp, cert.fix_rows, r[cert.fix_cols] * vals * w / den[cert.fix_cols])
    gw, lw = gap_of(yp)
    print(f"{k}: dres {np.abs(r).max():.1e}  min-norm gap {base:.2e} (lam {low['lambda_min_dual']:+.2e})  "
          f"jacobi gap {gw:.2e} (lam {lw:+.2e})", flush=True)

# ---- face-respecting absorption: dZ = P X P, P = I - UU' (U: the near-null eigenvectors of Z), min |X|_F by CG
B = cert.A[sl].tocsr()
BT = B.T.tocsr()
sq = np.asarray(B.multiply(B).sum(axis=0)).ravel()


def ps(v, U):
    """svec(P smat(v) P)."""
    X = smat(v, d)
    XU = X @ U
    X = X - U @ XU.T - XU @ U.T + U @ ((U.T @ XU) @ U.T)
    return svec(X)


def face_absorb(y, U, iters=60):
    r = q + cert.AT @ y
    # CG on B' Ps B w = -r, preconditioned by diag(B'B)
    w = np.zeros(prob.n)
    res = -r.copy()
    z = res / sq
    p = z.copy()
    rz = float(res @ z)
    nr0 = np.linalg.norm(r)
    it = 0
    for it in range(iters):  # noqa: B007
        Ap = BT @ ps(B @ p, U)
        alpha = rz / float(p @ Ap)
        w += alpha * p
        res -= alpha * Ap
        if np.linalg.norm(res) < 1e-12 * nr0:
            break
        z = res / sq
        rz_new = float(res @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    yp = y.copy()
    yp[sl] += ps(B @ w, U)
    return yp, it + 1, np.linalg.norm(res) / nr0


for k in keys:
    y = data[k]
    Z = smat(y[sl], d)
    lam, V = sla.eigh(Z, subset_by_index=[0, 11], check_finite=False)
    print(f"{k}: smallest eigenvalues of Z: " + " ".join(f"{v:.1e}" for v in lam), flush=True)
    for kk in (1, 2, 4, 8):
        yp, its, rr = face_absorb(y, V[:, :kk])
        base = cert.lower(q, yp)       # the certifier's own absorption of what is left, then lambda_min
        print(f"   face absorption with {kk} vectors: CG {its} its (residual left {rr:.1e}); "
              f"gap {(-base['lower'] - pv) / abs(pv):.2e} (lam {base['lambda_min_dual']:+.2e})", flush=True)

# ---- the same with U = the Dirac point's moment vector m(x*) exactly (Z m(x*) = 0 at the optimum): then the
# system is consistent, (P X P)_00 = r . xhat being the only condition along the Dirac point
if len(sys.argv) > 3 and sys.argv[3] == "dirac":
    xhat = data["xhat"]
    Mx = smat(cert.b[sl] - B @ xhat, d)                   # the moment matrix of the Dirac point (slack b - Ax)
    m = Mx[:, 0] / Mx[0, 0]
    u = (m / np.linalg.norm(m))[:, None]
    print(f"dirac: |m m' - M(xhat)| = {np.linalg.norm(np.outer(m, m) - Mx):.1e}")
    for k in keys:
        y = data[k]
        for iters in (10, 30, 100):
            yp, its, rr = face_absorb(y, u, iters)
            base = cert.lower(q, yp)
            print(f"{k}: dirac face absorption, CG {its} its (residual left {rr:.1e}); "
                  f"gap {(-base['lower'] - pv) / abs(pv):.2e} (lam {base['lambda_min_dual']:+.2e}, "
                  f"value {(-base['dual_value'] - pv) / abs(pv):+.2e})", flush=True)

# ---- scaled absorption: dZ = D Y D, D = P + s uu' (u the Dirac moment vector, normalized), min |Y|_F by PCG.
# s = 1 is the certifier's min-norm absorption; s > 1 makes the components that touch u (the tangent directions of
# the Dirac point, which the face P X P cannot absorb: its system is inconsistent there) cheaper than those in the
# face, so the correction stays off the near-null face of Z
if len(sys.argv) > 3 and sys.argv[3] == "scaled":
    xhat = data["xhat"]
    Mx = smat(cert.b[sl] - B @ xhat, d)
    m = Mx[:, 0] / Mx[0, 0]
    u = m / np.linalg.norm(m)

    def dsd(v, s):
        X = smat(v, d)
        Xu = X @ u
        uXu = float(u @ Xu)
        # D X D with D = I + (s - 1) uu'
        c = s - 1.0
        X = X + c * (np.outer(u, Xu) + np.outer(Xu, u)) + c * c * uXu * np.outer(u, u)
        return svec(X)

    def scaled_absorb(y, s, iters=200):
        r = q + cert.AT @ y
        w = np.zeros(prob.n)
        res = -r.copy()
        z = res / sq
        p = z.copy()
        rz = float(res @ z)
        nr0 = np.linalg.norm(r)
        it = 0
        for it in range(1, iters + 1):  # noqa: B007
            Ap = BT @ dsd(B @ p, s)
            alpha = rz / float(p @ Ap)
            w += alpha * p
            res -= alpha * Ap
            if np.linalg.norm(res) < 1e-10 * nr0:
                break
            z = res / sq
            rz_new = float(res @ z)
            p = z + (rz_new / rz) * p
            rz = rz_new
        yp = y.copy()
        yp[sl] += dsd(B @ w, s)
        return yp, it, np.linalg.norm(res) / nr0

    for k in keys:
        y = data[k]
        for s in (1.0, 3.0, 10.0, 30.0, 100.0, 0.5, 0.2, 0.1):
            yp, its, rr = scaled_absorb(y, s)
            base = cert.lower(q, yp)
            print(f"{k}: scaled absorption s = {s:5.1f}, PCG {its} its (residual left {rr:.1e}); "
                  f"gap {(-base['lower'] - pv) / abs(pv):.2e} (lam {base['lambda_min_dual']:+.2e}, "
                  f"value {(-base['dual_value'] - pv) / abs(pv):+.2e})", flush=True)

# ruff: noqa: B007, B023, E402, E501
"""Prototype of issue 15 (run as recorded in newton_prototypes.txt; kept for the record, not a library module)."""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.rankone_dual import DualFeasibility, NegativeEigenpairs
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n = int(sys.argv[1])
relax = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
for ti in range(3):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    feas = DualFeasibility(prob)
    t0 = time.process_time()
    val, z = rd.best_point(q, starts=128, rng=0)
    x = rd.dirac(z)
    pv = -float(q @ x)
    t1 = time.process_time()
    # moment-matrix vector v: Y = A-block rows; v v^T = smat(s)
    s = prob.b - prob.A @ x
    from sosproj.sdp.conic import smat

    sl = feas.big_slice
    Y = smat(s[sl], feas.N)
    lam, U = np.linalg.eigh(Y)
    v = U[:, -1] * np.sqrt(lam[-1])
    print("rank1 resid", np.linalg.norm(Y - np.outer(v, v)), "norm z", np.linalg.norm(z))
    u = v / np.linalg.norm(v)
    N = feas.N
    rhs = feas.rhs(q, pv)
    zZ = np.zeros((N, N))
    zr = np.zeros(len(feas.rest_rows))
    neg = NegativeEigenpairs(N)

    def face(Z):
        Zu = Z @ u
        a = u @ Zu
        return Z - np.outer(Zu, u) - np.outer(u, Zu) + a * np.outer(u, u)

    t2 = time.process_time()
    for it in range(1, 3001):
        aZ, ar = feas.affine(zZ, zr, rhs)
        RZ = face(2 * aZ - zZ)
        l, V = neg(RZ, 1e-6)
        if l.size:
            RZ -= (V * l) @ V.T
        pr = feas.cone_rest(2 * ar - zr)
        dZ = relax * (RZ - aZ)
        dr = relax * (pr - ar)
        zZ += dZ
        zr = zr + dr
        if it % 5 == 0:
            y = feas.dual_vector(pv, aZ, ar)
            lo = cert.lower(q, y)
            gap = (-lo["lower"] - pv) / max(1, abs(pv))
            if gap < 1e-6:
                break
    t3 = time.process_time()
    print(
        f"n={n} t{ti}: pv={pv:.6f} power {t1 - t0:.2f}s  DR-face it={it} {t3 - t2:.2f}s gap={gap:.2e} lmin={lo['lambda_min_dual']:.2e} nneg={neg.n_neg}",
        flush=True,
    )

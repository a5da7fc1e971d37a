# ruff: noqa: B007, B023, E402, E501, F841
"""Issue 15 (support3): Douglas-Rachford of the rough phase started from the closed-form flattening certificate.

t - p(x) = 1/2 |sqrt(c) x - B m2 / sqrt(c)|^2 + 1/(2c) m2' (a^2 D - B'B) m2 + (a + a/2 |x|^2)(1 - |x|^2),  t = a,
B = flattening of sym(W) against the degree-2 monomials m2, D = E'E, a = ||B D^{-1/2}||, c = a.
Usage: python proto_flat_start.py N TENSORS CFG...   (CFG = START[:MARGIN[:RELAX]], START: zero, flat, flatscaled;
MARGIN: t = p (1 + MARGIN * 1e-2), default 0.5; RELAX default 1.7)
"""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.cones import svec
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.rankone_dual import DualFeasibility, NegativeEigenpairs
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n, tensors = int(sys.argv[1]), int(sys.argv[2])
starts = sys.argv[3:]
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])
basis = R.psd_blocks[0].basis
N = basis.shape[0]
pairs = [tuple(np.flatnonzero(b).tolist()) if b.sum() == 2 and b.max() == 1 else (int(np.argmax(b)),) * 2
         for b in basis[1 + n:]]


def flat_cert(W):
    Ws = (W + W.transpose(0, 2, 1) + W.transpose(1, 0, 2) + W.transpose(1, 2, 0) + W.transpose(2, 0, 1)
          + W.transpose(2, 1, 0)) / 6
    B = np.array([[Ws[i, j, k] * (1.0 if j == k else 2.0) for (j, k) in pairs] for i in range(n)])
    Dd = np.array([1.0 if j == k else 2.0 for (j, k) in pairs])
    a = float(np.linalg.norm(B / np.sqrt(Dd), 2)) * 1.01
    c = a
    Z = np.zeros((N, N))
    Z[1:1 + n, 1:1 + n] = 0.5 * c * np.eye(n)
    Z[1:1 + n, 1 + n:] = -0.5 * B
    Z[1 + n:, 1:1 + n] = -0.5 * B.T
    Z[1 + n:, 1 + n:] = 0.5 * (a * a / c) * np.diag(Dd)
    S = np.diag(np.concatenate([[a], 0.5 * a * np.ones(n)]))
    return a, Z, S


for ti in range(tensors):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    f = DualFeasibility(prob)
    _, z = rd.best_point(q, starts=128, rng=0)
    x = rd.dirac(z)
    pv = -float(q @ x)
    a, Zf, Sf = flat_cert(W)
    yr_f = svec(Sf)
    # convention check: the flattening certificate must be (nearly) in the affine set at t' = a
    for sgn in (1.0,):
        Pa, Pr = f.affine(Zf, sgn * yr_f, f.rhs(q, a))
        low = cert.lower(q, f.dual_vector(a, Zf, yr_f))
        print(f"n={n} t{ti}: p={pv:.4f} flattening bound a={a:.4f} ({a / pv:.2f}x) affine residual "
              f"{np.linalg.norm(Pa - Zf):.2e}/{np.linalg.norm(Pr - sgn * yr_f):.2e} certified upper {-low['lower']:.4f}", flush=True)
    goal = 1e-2
    for cfg in starts:
        parts = cfg.split(":")
        st = parts[0]
        mf = float(parts[1]) if len(parts) > 1 else 0.5
        relax = float(parts[2]) if len(parts) > 2 else 1.7
        t = pv + mf * goal * max(1.0, abs(pv))
        if st == "zero":
            state = None
        elif st == "flat":
            state = (Zf.copy(), yr_f.copy())
        elif st == "flatscaled":
            s = t / a
            state = (s * Zf, s * yr_f)
        neg = NegativeEigenpairs(f.N)
        screen = NegativeEigenpairs(f.N)
        tb = cert.trace_bound
        counts = []

        def check(Z, yr):
            counts.append(neg.n_neg)
            lam, _ = screen(Z, 1e-3)
            est = t + tb * max(0.0, -float(lam[0]) if lam.size else 0.0)
            if (est - pv) / max(1.0, abs(est)) > goal:
                return False
            low = cert.lower(q, f.dual_vector(t, Z, yr))
            return (-low["lower"] - pv) / max(1.0, abs(pv)) <= goal

        c0 = time.process_time()
        run = f.run(q, t, max_iter=1500, check=check, check_every=5, neg=neg, relax=relax, state=state)
        print(f"  cfg={cfg}: steps={run.iterations} {run.status} cpu={time.process_time() - c0:.2f}s "
              f"neg every 5 steps: {counts[:40]}", flush=True)

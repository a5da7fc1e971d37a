# ruff: noqa: B007, B023, E402, E501
"""Prototype of issue 15 (run as recorded in newton_prototypes.txt; kept for the record, not a library module)."""
import sys
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.cones import smat, svec
from sosproj.sdp.lowrank_support import TensorRounding
from sosproj.sdp.rankone_dual import DualFeasibility
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

n = int(sys.argv[1])
T = int(sys.argv[2])
C = float(sys.argv[3])
VERB = len(sys.argv) > 4
R = MomentRelaxation(unit_ball(n), 4)
rng = np.random.default_rng([2026, n])


def psd_parts(M):
    lam, Q = np.linalg.eigh(M)
    P = (Q * np.maximum(lam, 0)) @ Q.T
    return P, lam, Q


def jac(lam, Q, H):
    pos = lam > 0
    lp = np.maximum(lam, 0)
    num = lp[:, None] - lp[None, :]
    den = lam[:, None] - lam[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        Om = np.where(np.abs(den) > 1e-300, num / den, 0.0)
    Om[np.ix_(pos, pos)] = 1.0
    Om[np.ix_(~pos, ~pos)] = 0.0
    return Q @ (Om * (Q.T @ H @ Q)) @ Q.T


for ti in range(T):
    W = rng.standard_normal((n, n, n))
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rd = TensorRounding(R, 3)
    f = DualFeasibility(prob)
    c0 = time.process_time()
    val, z = rd.best_point(q, starts=128, rng=0)
    x = rd.dirac(z)
    pv = -float(q @ x)
    t = pv + 0.5e-6 * max(1, abs(pv))
    rhs = f.rhs(q, t)
    N = f.N
    blocks = f.rest_blocks
    sl = f.big_slice
    from sosproj.sdp.conic import smat as _sm

    Y = _sm((prob.b - prob.A @ x)[sl], N)
    u = np.linalg.eigh(Y)[1][:, -1]
    Z0 = C * (np.eye(N) - np.outer(u, u))

    def Kstar(mu):
        return Z0 + (mu[f.cls] * f.w).reshape(N, N)

    def rest_proj(v):
        out = v.copy()
        info = []
        for sl, d in blocks:
            if d == 1:
                out[sl] = np.maximum(v[sl], 0)
                info.append(v[sl] > 0)
            else:
                P, lam, Q = psd_parts(smat(v[sl], d))
                out[sl] = svec(P)
                info.append((lam, Q))
        return out, info

    def rest_jac(info, h):
        out = h.copy()
        for (sl, d), inf in zip(blocks, info):
            if d == 1:
                out[sl] = h[sl] * inf
            else:
                out[sl] = svec(jac(inf[0], inf[1], smat(h[sl], d)))
        return out

    def evaluate(mu):
        M = Kstar(mu)
        P, lam, Q = psd_parts(M)
        rv, info = rest_proj(f.Ar @ mu)
        phi = 0.5 * np.sum(P * P) - 0.0 + 0.5 * rv @ rv - rhs @ mu
        grad = f._K(P, rv) - rhs
        return phi, grad, (P, lam, Q, rv, info)

    mu = np.zeros(prob.n)
    phi, g, st = evaluate(mu)
    newton = 0
    cgtot = 0
    for it in range(60):
        P, lam, Q, rv, info = st
        # certify
        y = f.dual_vector(t, P, rv)
        lo = cert.lower(q, y)
        gap = (-lo["lower"] - pv) / max(1, abs(pv))
        if VERB:
            print(
                f"  it {it} phi {phi:.6e} |g| {np.linalg.norm(g):.2e} gap {gap:.2e} nneg {(lam < 0).sum()} cg {cgtot}"
            )
        if gap <= 1e-6:
            break

        # PCG
        def H(d):
            return f._K(jac(lam, Q, Kstar(d) - Z0), rest_jac(info, f.Ar @ d)) + 1e-10 * d

        b = -g
        d = np.zeros_like(b)
        r = b.copy()
        zz = f._solve(r)
        p = zz.copy()
        rz = r @ zz
        tolcg = min(0.1, np.linalg.norm(g)) * np.linalg.norm(b)
        for k in range(200):
            Hp = H(p)
            a = rz / (p @ Hp)
            d += a * p
            r -= a * Hp
            cgtot += 1
            if np.linalg.norm(r) < tolcg:
                break
            zz = f._solve(r)
            rzn = r @ zz
            p = zz + (rzn / rz) * p
            rz = rzn
        s = 1.0
        while True:
            phin, gn, stn = evaluate(mu + s * d)
            if phin <= phi + 1e-4 * s * (g @ d) or s < 1e-8:
                break
            s *= 0.5
        mu = mu + s * d
        phi, g, st = phin, gn, stn
    print(
        f"n={n} t{ti} pv={pv:.6f} newton={it} cg={cgtot} cpu={time.process_time() - c0:.2f}s gap={gap:.2e}", flush=True
    )

"""Prototype: proximal point on (x, s) + Malick's smooth dual by semismooth Newton-CG (Qi-Sun 2006).

theta as in dual_lbfgs.py; -theta has the generalized Hessian  A H^{-1} A' + tau_s J,
J in the Clarke Jacobian of Pi_K at v = s_k - tau_s y (PSD blocks: Q (Omega o Q'.Q) Q', the zero
cone 0; ssnal's _PsdBlock applies it in O(d^2 r)).  The Newton system is solved by CG preconditioned
with M^{-1} (M = A H^{-1} A' + T, Woodbury through the ADMM's normal solve, as in dual_plbfgs.py),
relative tolerance min(ETA, ||g||^0.5), at most CGMAX products; Armijo backtracking.  INNER Newton
steps per proximal centre.  Every evaluation checks the original residuals (stop at 1e-6).
Usage: python dual_newton.py N REGIME TAU_S INNER CGMAX [ETA] [MAX_EVALS] [WARM_GRADIENT_STEPS]
"""
import sys
import time

import numpy as np

sys.path.insert(0, "benchmarks")
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.backends.admm import AdmmBackend  # noqa: E402
from sosproj.sdp.backends.ssnal import _PsdBlock  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.conic import relative_residuals  # noqa: E402

n, regime = int(sys.argv[1]), sys.argv[2]
tau_s, inner, cgmax = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
eta = float(sys.argv[6]) if len(sys.argv) > 6 else 0.1
max_evals = int(sys.argv[7]) if len(sys.argv) > 7 else 500
tau = 1e3
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
adm = AdmmBackend(prob, tol=1e-6)
A, AT, b, q, cones = adm.A, adm.AT, prob.b, prob.q, prob.cones
p = adm.p_diag.copy()
m, N = A.shape
zero_rows = np.zeros(m, dtype=bool)
blocks = []
for kind, sl, d in adm.slices:
    if kind == "zero":
        zero_rows[sl] = True
    elif kind == "psd":
        blocks.append((sl, _PsdBlock(d, single=False)))
    else:
        raise SystemExit(f"cone {kind} not in this prototype")
Hd = p + 1.0 / tau
t = np.where(zero_rows, tau_s * 1e-3, tau_s)
adm.p_diag = Hd
fac = adm.normal_factor(1.0 / t)
adm.p_diag = p


def precond(g):
    return g / t - (A @ adm.normal_solve(AT @ (g / t), fac)) / t


xk, sk, y = np.zeros(N), np.zeros(m), np.zeros(m)
WARM_TOL = float(__import__("os").environ.get("WARM_TOL", "0"))
if WARM_TOL:        # hybrid: `lowrank` to WARM_TOL, then this method from its (x, s, y)
    from sosproj.sdp.backends.lowrank import LowrankBackend
    c_w = time.process_time()
    sol_w = LowrankBackend(prob, tol=WARM_TOL).solve()
    xk, sk, y = np.asarray(sol_w.x), np.asarray(sol_w.s), np.asarray(sol_w.y)
    print(f"warm start: lowrank to {WARM_TOL}: {sol_w.status} {sol_w.iterations} iterations "
          f"cpu {time.process_time() - c_w:.2f}", flush=True)
evals = cgs = 0


def evaluate(yv):
    global evals
    evals += 1
    x = (xk / tau - q - AT @ yv) / Hd
    v = sk - tau_s * yv
    s = np.zeros(m)
    yhat = np.where(zero_rows, -v, 0.0)
    for sl, blk in blocks:
        plus, minus = blk.decompose(v[sl])
        s[sl] = plus
        yhat[sl] = minus
    yhat /= tau_s
    Ax = A @ x
    th = (0.5 * x @ (p * x) + q @ x + (x - xk) @ (x - xk) / (2 * tau) + yv @ Ax
          + (s - sk) @ (s - sk) / (2 * tau_s) + yv @ s - yv @ b)
    res = relative_residuals(x, yhat, s, Ax=Ax, Aty=AT @ yhat, Px=p * x, q=q, b=b)
    return -th, -(Ax + s - b), x, s, res


def hess(h):
    global cgs
    cgs += 1
    out = A @ ((AT @ h) / Hd)
    for sl, blk in blocks:
        out[sl] += tau_s * blk.jacobian(h[sl])
    return out


def pcg(g, rtol):
    xs = np.zeros_like(g)
    r = -g.copy()
    z = precond(r)
    pd = z.copy()
    rz = r @ z
    r0 = np.linalg.norm(r)
    for _ in range(cgmax):
        Hp = hess(pd)
        a = rz / (pd @ Hp)
        xs += a * pd
        r -= a * Hp
        if np.linalg.norm(r) <= rtol * r0:
            break
        z = precond(r)
        rz_new = r @ z
        pd = z + (rz_new / rz) * pd
        rz = rz_new
    return xs


t0 = time.process_time()
f, g, x, s, res = evaluate(y)
k_in = outer = 0
warm = int(sys.argv[8]) if len(sys.argv) > 8 else 5      # preconditioned gradient steps first
it = 0
while evals < max_evals and max(res) > 1e-6:
    it += 1
    newton = it > warm
    d = pcg(g, min(eta, np.linalg.norm(g) ** 0.5)) if newton else -precond(g)
    slope = g @ d
    if slope >= 0:
        d = -precond(g)
        slope = g @ d
        newton = False
    step = 1.0
    while True:
        fn, gn, xn, sn, resn = evaluate(y + step * d)
        if fn <= f + 1e-4 * step * slope:
            break
        step *= 0.5
        if step < 0.1 and newton:          # Newton direction rejected: a gradient step instead
            d = -precond(g)
            slope = g @ d
            step, newton = 1.0, False
        elif step < 1e-4:
            break
    y, f, g, x, s, res = y + step * d, fn, gn, xn, sn, resn
    k_in += 1
    if k_in >= inner:
        k_in = 0
        outer += 1
        xk, sk = x, s
        f, g, x, s, res = evaluate(y)
    print(f"step {outer:3d}/{k_in} evals {evals:4d} cg {cgs:5d} alpha {step:.2f} pres {res[0]:.2e} "
          f"dres {res[1]:.2e} gap {res[2]:.2e} cpu {time.process_time() - t0:.1f}", flush=True)
print(f"done {n} {regime} tau_s {tau_s} inner {inner} cgmax {cgmax} eta {eta} evals {evals} cg {cgs} "
      f"res {res[0]:.1e} {res[1]:.1e} {res[2]:.1e} cpu {time.process_time() - t0:.2f}")

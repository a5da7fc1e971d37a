"""Prototype: proximal point on (x, s) + Malick's smooth dual by *preconditioned* L-BFGS (issue 15, proj6).

As dual_lbfgs.py (see there for theta), with the two-loop recursion started from
M^{-1}, M = A H^{-1} A' + T (the dual Hessian when every eigenvalue is active, T = tau_s on cone rows,
eps on the zero cone), applied by Woodbury through the ADMM's closed-form normal solve:
M^{-1} = T^{-1} - T^{-1} A (H + A' T^{-1} A)^{-1} A' T^{-1},  H = P + I/tau.
Armijo backtracking from the unit step; every evaluation (one eigendecomposition per PSD block)
also checks the original problem's residuals at (x(y), s(y), yhat), yhat = Pi_K*(-v)/tau_s, and the
run stops when all three are <= 1e-6 (the ADMM's test).  The outer proximal centre moves every
INNER evaluations.
Usage: python dual_plbfgs.py N REGIME TAU TAU_S INNER [MEMORY] [KEEP(0/1)] [MAX_EVALS] [GROW] [TAU_S_MAX]
"""
import sys
import time

import numpy as np

sys.path.insert(0, "benchmarks")
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.backends.admm import AdmmBackend  # noqa: E402
from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.cones import project_dual_cone  # noqa: E402
from sosproj.sdp.conic import relative_residuals  # noqa: E402

n, regime = int(sys.argv[1]), sys.argv[2]
tau, tau_s, inner = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
mem = int(sys.argv[6]) if len(sys.argv) > 6 else 10
keep = bool(int(sys.argv[7])) if len(sys.argv) > 7 else True
max_evals = int(sys.argv[8]) if len(sys.argv) > 8 else 3000
grow = float(sys.argv[9]) if len(sys.argv) > 9 else 1.0        # tau_s *= grow at every outer step
ts_max = float(sys.argv[10]) if len(sys.argv) > 10 else 1e6
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
adm = AdmmBackend(prob, tol=1e-6)
A, AT, b, q, cones = adm.A, adm.AT, prob.b, prob.q, prob.cones
p = adm.p_diag.copy()
m, N = A.shape
zero_rows = np.zeros(m, dtype=bool)
for kind, sl, _ in adm.slices:
    if kind == "zero":
        zero_rows[sl] = True
Hd = p + 1.0 / tau


def refactor():
    global t, fac
    t = np.where(zero_rows, tau_s * 1e-3, tau_s)
    adm.p_diag = Hd                       # normal_factor factors Hd + A' diag(1/t) A
    fac = adm.normal_factor(1.0 / t)
    adm.p_diag = p


refactor()


def precond(g):
    return g / t - (A @ adm.normal_solve(AT @ (g / t), fac)) / t


xk, sk, y = np.zeros(N), np.zeros(m), np.zeros(m)
WARM_TOL = float(__import__("os").environ.get("WARM_TOL", "0"))
if WARM_TOL:        # hybrid: `lowrank` to WARM_TOL, then this method from its (x, s, y)
    import os
    cache = os.environ.get("WARM_CACHE")          # an .npz of a previous run's warm start (same N, regime)
    if cache and os.path.exists(cache):
        z = np.load(cache)
        xk, sk, y = z["x"], z["s"], z["y"]
        print(f"warm start from {cache}: {z['info']}", flush=True)
    else:
        from sosproj.sdp.backends.lowrank import LowrankBackend
        c_w = time.process_time()
        sol_w = LowrankBackend(prob, tol=WARM_TOL).solve()
        xk, sk, y = np.asarray(sol_w.x), np.asarray(sol_w.s), np.asarray(sol_w.y)
        info = (f"lowrank to {WARM_TOL}: {sol_w.status} {sol_w.iterations} iterations "
                f"cpu {time.process_time() - c_w:.2f} load {os.getloadavg()[0]:.2f}")
        print("warm start:", info, flush=True)
        if cache:
            np.savez(cache, x=xk, s=sk, y=y, info=info)
evals = 0
best = [np.inf]


def evaluate(yv):
    global evals
    evals += 1
    x = (xk / tau - q - AT @ yv) / Hd
    v = sk - tau_s * yv
    s = adm._project(v)
    Ax = A @ x
    th = (0.5 * x @ (p * x) + q @ x + (x - xk) @ (x - xk) / (2 * tau) + yv @ Ax
          + (s - sk) @ (s - sk) / (2 * tau_s) + yv @ s - yv @ b)
    g = Ax + s - b
    yhat = project_dual_cone(-v, cones) / tau_s
    res = relative_residuals(x, yhat, s, Ax=Ax, Aty=AT @ yhat, Px=p * x, q=q, b=b)
    return -th, -g, x, s, res


t0 = time.process_time()
f, g, x, s, res = evaluate(y)
S, Yc = [], []
outer, k_in = 0, 0
while evals < max_evals and max(res) > 1e-6:
    # two-loop recursion with H0 = M^{-1}
    qv = g.copy()
    alphas = []
    for si, yi in reversed(list(zip(S, Yc))):
        a = (si @ qv) / (yi @ si)
        alphas.append(a)
        qv -= a * yi
    r = precond(qv)
    for (si, yi), a in zip(zip(S, Yc), reversed(alphas)):
        bta = (yi @ r) / (yi @ si)
        r += (a - bta) * si
    d = -r
    slope = g @ d
    if slope >= 0:
        S, Yc = [], []
        d = -precond(g)
        slope = g @ d
    step = 1.0
    while True:
        fn, gn, xn, sn, resn = evaluate(y + step * d)
        if fn <= f + 1e-4 * step * slope or step < 1e-3:
            break
        step *= 0.5
    sv, yv_ = step * d, gn - g
    if sv @ yv_ > 1e-12 * np.linalg.norm(sv) * np.linalg.norm(yv_):
        S.append(sv)
        Yc.append(yv_)
        if len(S) > mem:
            S.pop(0)
            Yc.pop(0)
    y, f, g, x, s, res = y + sv, fn, gn, xn, sn, resn
    k_in += 1
    if k_in >= inner:
        outer += 1
        k_in = 0
        xk, sk = x, s
        if grow != 1.0 and tau_s < ts_max:
            # y must stay the same multiplier: yhat is unchanged when v = s_k - tau_s y keeps its
            # negative part scaled, so keep y (the proximal centre s_k = s absorbs the change)
            tau_s = min(tau_s * grow, ts_max)
            refactor()
            S, Yc = [], []
        if not keep:
            S, Yc = [], []
        f, g, x, s, res = evaluate(y)
        print(f"outer {outer:3d} evals {evals:5d} pres {res[0]:.2e} dres {res[1]:.2e} gap {res[2]:.2e} "
              f"cpu {time.process_time() - t0:.1f}", flush=True)
print(f"done {n} {regime} tau {tau} tau_s {tau_s} grow {grow} inner {inner} mem {mem} keep {int(keep)} evals {evals} "
      f"res {res[0]:.1e} {res[1]:.1e} {res[2]:.1e} cpu {time.process_time() - t0:.2f}")
if __import__("os").environ.get("CHECK_CLARABEL"):     # the answer against Clarabel at 1e-9 (small n only)
    from sosproj.sdp.solve import ConicSolver
    ref = ConicSolver(prob, "clarabel", tol=1e-9).solve()
    seen = p > 0        # the moments the objective sees (unique at the optimum; the others need not be)
    print(f"clarabel {ref.status}: max |x - x_clarabel| over the read-out moments = "
          f"{np.max(np.abs(x - ref.x)[seen]):.2e} (max |x_clarabel| there {np.max(np.abs(ref.x[seen])):.2e}); "
          f"objective {0.5 * x @ (p * x) + q @ x:.10f} against {0.5 * ref.x @ (p * ref.x) + q @ ref.x:.10f}")


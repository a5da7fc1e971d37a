"""Prototype: proximal point on (x, s) with Malick's smooth dual maximized by L-BFGS (issue 15, proj6).

The projection  min 1/2 x'Px + q'x  s.t. Ax + s = b, s in K  has a diagonal P that is zero on every
moment the readout does not see (degree 0, 1, 2, 4 at k = 3), so its Lagrangian dual is not smooth.
Each proximal subproblem  + ||x - x_k||^2 / (2 tau) + ||s - s_k||^2 / (2 tau_s)  has the smooth concave
dual  theta(y) = min_x [...] + min_{s in K} [...] - b'y  (Malick 2004) with
x(y) = (P + I/tau)^{-1}(x_k/tau - q - A'y),  s(y) = Pi_K(s_k - tau_s y),  grad = A x + s - b.
One evaluation = one projection onto K (one eigendecomposition per PSD block).
Usage: python dual_lbfgs.py N REGIME TAU TAU_S [INNER_MAXITER] [MAX_EVALS]
"""
import sys
import time

import numpy as np
import scipy.optimize as so

sys.path.insert(0, "benchmarks")
from moment_projection import make_input  # noqa: E402

from sosproj.sdp.compile import compile_projection  # noqa: E402
from sosproj.sdp.cones import project_cone, project_dual_cone  # noqa: E402
from sosproj.sdp.conic import relative_residuals  # noqa: E402

n, regime = int(sys.argv[1]), sys.argv[2]
tau, tau_s = float(sys.argv[3]), float(sys.argv[4])
inner_maxiter = int(sys.argv[5]) if len(sys.argv) > 5 else 50
max_evals = int(sys.argv[6]) if len(sys.argv) > 6 else 3000
R, _, Y = make_input("unit_ball", n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
A, AT, b, q, cones = prob.A.tocsr(), prob.A.T.tocsr(), prob.b, prob.q, prob.cones
p = prob.P.diagonal()
m, N = A.shape
evals = 0


def residuals(x, s, yhat):
    return relative_residuals(x, yhat, s, Ax=A @ x, Aty=AT @ yhat, Px=p * x, q=q, b=b)


xk, sk, y = np.zeros(N), np.zeros(m), np.zeros(m)
t0 = time.process_time()
outer = 0
state = {}


def neg_theta(yv):
    global evals
    evals += 1
    x = (xk / tau - q - AT @ yv) / (p + 1.0 / tau)
    v = sk - tau_s * yv
    s = project_cone(v, cones)
    Ax = A @ x
    th = (0.5 * x @ (p * x) + q @ x + (x - xk) @ (x - xk) / (2 * tau) + yv @ Ax
          + (s - sk) @ (s - sk) / (2 * tau_s) + yv @ s - yv @ b)
    g = Ax + s - b
    state.update(x=x, s=s, v=v)
    return -th, -g


while evals < max_evals:
    outer += 1
    res = so.minimize(neg_theta, y, jac=True, method="L-BFGS-B",
                      options={"maxiter": inner_maxiter, "maxcor": 20, "gtol": 0.0, "ftol": 0.0})
    y = res.x
    neg_theta(y)
    x, s, v = state["x"], state["s"], state["v"]
    yhat = project_dual_cone(-v, cones) / tau_s
    pr, dr, gp = residuals(x, s, yhat)
    print(f"outer {outer:3d} evals {evals:5d} nit {res.nit:3d} pres {pr:.2e} dres {dr:.2e} gap {gp:.2e} "
          f"step {np.linalg.norm(x - xk):.2e} cpu {time.process_time() - t0:.1f}", flush=True)
    xk, sk = x, s
    if max(pr, dr, gp) <= 1e-6:
        break
print("done", n, regime, tau, tau_s, "evals", evals, "cpu", round(time.process_time() - t0, 2))

# ruff: noqa
# Prototype: diagonal congruence scaling D M D of the PSD blocks (rows of A, b scaled by d_i d_j).
import sys, time, json
import numpy as np, scipy.sparse as sp
sys.path.insert(0, "benchmarks")
from moment_projection import make_input
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.backends import backend_class
from sosproj.sdp.conic import ConicProblem, relative_residuals
from sosproj.sdp.cones import svec_indices, PSDProjector
n, regime = int(sys.argv[1]), sys.argv[2]
system = sys.argv[3] if len(sys.argv) > 3 else "unit_ball"
modes = sys.argv[4:] if len(sys.argv) > 4 else ["none", "oracle", "warm20"]
R, ro, Y = make_input(system, n, regime)
prob = compile_projection(R, 3, Y, solver="admm")
def row_scale(prob, diags):
    t = np.ones(prob.m)
    for (kind, sl, d), dd in zip([b for b in prob.cones.blocks() if b[0] == "psd"], diags):
        i, j = svec_indices(d, "scs")
        t[sl] = dd[i] * dd[j]
    return t
def psd_diags(prob, s, floor=1e-3):
    out = []
    for kind, sl, d in prob.cones.blocks():
        if kind != "psd": continue
        i, j = svec_indices(d, "scs")
        dg = s[sl][i == j]
        mx = dg.max()
        if not mx > 0:
            out.append(np.ones(d)); continue
        dg = np.maximum(dg, floor * mx)
        out.append(1.0 / np.sqrt(dg / mx))
    return out
def run(p, **kw):
    be = backend_class("lowrank")(p, tol=1e-6, **kw)
    t = time.process_time(); s = be.solve(); return s, time.process_time() - t
def orig_res(x, y, s):
    return relative_residuals(x, y, s, Ax=prob.A @ x, Aty=prob.A.T @ y, Px=prob.P @ x, q=prob.q, b=prob.b)
base, c0 = run(prob)
print(n, regime, "none", base.status, base.iterations, f"cpu {c0:.2f}", ["%.1e" % r for r in orig_res(base.x, base.y, base.s)], flush=True)
for mode in modes[1:]:
    it0 = 0; c1 = 0.0
    if mode.startswith("oracle"):
        pw = float(mode.split(":")[1]) if ":" in mode else 1.0
        diags = [d ** pw for d in psd_diags(prob, base.s)]
    elif mode.startswith("warm"):
        k = int(mode[4:])
        pre, c1 = run(prob, max_iter=k); it0 = pre.iterations
        diags = psd_diags(prob, pre.s)
    t = row_scale(prob, diags)
    A2 = sp.diags(t) @ prob.A
    p2 = ConicProblem(prob.P, prob.q, sp.csc_matrix(A2), t * prob.b, prob.cones, offset=prob.offset)
    sol, c2 = run(p2)
    x, y, s = sol.x, t * sol.y, sol.s / t
    print(n, regime, mode, sol.status, it0, "+", sol.iterations, f"cpu {c1 + c2:.2f}", ["%.1e" % r for r in orig_res(x, y, s)],
          f"dx {np.max(np.abs(x - base.x)):.1e}", "dmin/max", [f"{d.min():.2g}/{d.max():.2g}" for d in diags], flush=True)

"""Issue 15 (support5): probes of solver="rankone_newton" on the tensors of benchmarks/support_scale.py.

OPENBLAS_NUM_THREADS=1 python benchmarks/results_support/experiments/support5_probe.py MODE N TENSORS [CFG...]

MODE face    : the face projection of the flattening start at t = p(x*) (affine set cap {Z m(x*) = 0}, CG on
               the face multiplier): its negative eigenvalues, against the affine projection alone
MODE facefull: full solves with the rough phase replaced; CFG in base, newton_face (Newton from the face
               projection), newton_facepsd (from its PSD part), dr_face (Douglas-Rachford from it)
MODE drcap   : full solves with the rough phase cut after CFG = STEPS Douglas-Rachford steps
MODE exactcap: the rough phase only, every step's projection from the CFG = K most negative exact eigenpairs
MODE rough   : the rough phase only, CFG = none | K:GAP (dr_cap = K, dr_cap_gap = GAP); prints the trackers'
               (calls, filter accepted, exact calls)
MODE full    : full solves, CFG = none | K:GAP (dr_cap = K, dr_cap_gap = GAP); rough-phase CPU printed
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.linalg as sla
from scipy.sparse.linalg import LinearOperator, cg

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support, rankone_dual
from sosproj.sdp.backends import rankone_newton as rn
from sosproj.sdp.backends.rankone_newton import RankOneNewtonBackend
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver


def face_projection(feas, Z0, yr0, rhs, v, maxiter=500, tol=1e-10):
    """Projection of (Z0, yr0) onto {affine(t)} cap {Z v = 0}: CG on u, Z = Pi_A(Z0 - (u v' + v u'))."""
    zero_rhs = np.zeros_like(rhs)
    a0, r0 = feas.affine(Z0, yr0, rhs)
    zr = np.zeros_like(yr0)

    def PE(u):
        E = np.outer(u, v)
        E += E.T
        return feas.affine(E, zr, zero_rhs)

    op = LinearOperator((feas.N, feas.N), matvec=lambda u: PE(u)[0] @ v, dtype=float)
    u, info = cg(op, a0 @ v, rtol=tol, maxiter=maxiter)
    PZ, Pr = PE(u)
    return a0 - PZ, r0 - Pr, info


def setup(R, W, tol, **kw):
    prob = compile_support(R, 3, W)
    _, st = support_route(R, "rankone_newton", tol, 3)
    b = RankOneNewtonBackend(prob, tol=tol, **st, **kw)
    q = prob.q
    _, z = b.rounding.best_point(q, starts=128, rng=0)
    pv = -float(q @ b.rounding.dirac(z))
    basis = np.asarray(b.rounding.R.psd_blocks[0].basis)
    v = np.prod(z[None, :] ** basis, axis=1)
    return prob, st, b, q, pv, v


def face_start(b, q, pv, v):
    (Z0, yr0), _ = b._start(q, pv)
    return face_projection(b.feas, Z0, yr0, b.feas.rhs(q, pv), v)


def solve_full(R, W, tol, **kw):
    prob = compile_support(R, 3, W)
    _, st = support_route(R, "rankone_newton", tol, 3)
    c = time.process_time()
    res = ConicSolver(prob, "rankone_newton", tol=tol, **st, **kw).solve(on_fail="return")
    inf = res.info
    return (f"cpu {time.process_time() - c:.2f} {res.status} gap {inf['cert_relative_gap']:.1e} dr "
            f"{inf['dr_iterations']} (capped {inf.get('dr_capped_iterations', 0)}) newton {inf['newton_steps']} "
            f"cg {inf['newton_cg']} rounds {inf['newton_rounds']} full {inf['full_decompositions']} "
            f"upper {-inf['cert_lower']:.6f}")


class ExactCapped:
    """The K most negative eigenpairs by an exact partial eigendecomposition (MRRR), for every call."""

    K = 10 ** 9

    def __init__(self, d, *a, **kw):
        self.krylov_accepted = self.calls = 0

    def __call__(self, M, rtol):
        self.calls += 1
        K = min(self.K, M.shape[0])
        lam, V = sla.eigh(M.astype(np.float32) if rtol >= 1e-4 else M, driver="evr", subset_by_index=[0, K - 1])
        lam, V = lam.astype(float), V.astype(float)
        k = int(np.searchsorted(lam, 0.0))
        return lam[:k], V[:, :k]


def main() -> None:
    mode, n, T = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    cfgs = sys.argv[4:]
    R = MomentRelaxation(unit_ball(n), 4)
    rng = np.random.default_rng([2026, n])
    Ws = [rng.standard_normal((n, n, n)) for _ in range(T)]
    tol = 1e-7 if n <= 30 else 1e-6
    orig_rough = RankOneNewtonBackend._rough_dual
    rough_cpu = []

    def timed(self, *a):
        c = time.process_time()
        out = orig_rough(self, *a)
        rough_cpu.append(time.process_time() - c)
        return out

    for i, W in enumerate(Ws):
        if mode == "face":
            prob, st, b, q, pv, v = setup(R, W, tol)
            c = time.process_time()
            Zf, _, info = face_start(b, q, pv, v)
            cpu = time.process_time() - c
            lam = np.linalg.eigvalsh(Zf)
            (Z0, yr0), fb = b._start(q, pv)
            lam0 = np.linalg.eigvalsh(b.feas.affine(Z0, yr0, b.feas.rhs(q, pv))[0])
            print(f"n {n} t {i} pv {pv:.5f} flat {fb:.3f} face: cg info {info}, {cpu:.2f} s, |Zv| "
                  f"{np.linalg.norm(Zf @ v):.1e}, {np.sum(lam < -1e-8)} negative eigenvalues (min {lam[0]:.3f}); "
                  f"affine projection alone: {np.sum(lam0 < -1e-8)} (min {lam0[0]:.3f}); N {b.feas.N}", flush=True)
        for cfg in cfgs:
            if mode == "facefull":
                def patched(self, q, pv, deadline, _var=cfg):
                    if _var == "base":
                        return orig_rough(self, q, pv, deadline)
                    _, z = self.rounding.best_point(q, starts=128, rng=0)
                    v = np.prod(z[None, :] ** np.asarray(self.rounding.R.psd_blocks[0].basis), axis=1)
                    Zf, yrf, _ = face_start(self, q, pv, v)
                    if _var == "newton_face":
                        return self.feas.dual_vector(pv, Zf, yrf), 0, "face", None, 0, "off"
                    if _var == "newton_facepsd":
                        w, U = np.linalg.eigh(Zf)
                        Zp = (U * np.maximum(w, 0)) @ U.T
                        return self.feas.dual_vector(pv, Zp, self.feas.cone_rest(yrf)), 0, "facepsd", None, 0, "off"
                    self._start = lambda q_, t_: ((Zf, yrf), None)
                    try:
                        return orig_rough(self, q, pv, deadline)
                    finally:
                        del self._start
                RankOneNewtonBackend._rough_dual = patched
                print(cfg, n, i, solve_full(R, W, tol, dr_cap=None), flush=True)
                RankOneNewtonBackend._rough_dual = orig_rough
            elif mode == "drcap":
                print(cfg, n, i, solve_full(R, W, tol, dr_cap=None, dr_max_iter=int(cfg), dr_gap=1e-9), flush=True)
            elif mode == "exactcap":
                ExactCapped.K = int(cfg)
                saved = rn.NegativeEigenpairs
                rn.NegativeEigenpairs = ExactCapped
                _, _, b, q, pv, _ = setup(R, W, tol, dr_cap=None)
                c = time.process_time()
                out = b._rough_dual(q, pv, None)
                rn.NegativeEigenpairs = saved
                print(cfg, n, i, "rough", out[1], out[2], f"{time.process_time() - c:.2f}", flush=True)
            elif mode == "rough":
                inst = []
                init = rankone_dual.NegativeEigenpairs.__init__

                def rec(self, *a, _init=init, _inst=inst, **kw):
                    _init(self, *a, **kw)
                    _inst.append(self)
                rankone_dual.NegativeEigenpairs.__init__ = rec
                kw = {"dr_cap": None} if cfg == "none" else {"dr_cap": int(cfg.split(":")[0]),
                                                              "dr_cap_gap": float(cfg.split(":")[1])}
                _, _, b, q, pv, _ = setup(R, W, tol, **kw)
                c = time.process_time()
                out = b._rough_dual(q, pv, None)
                rankone_dual.NegativeEigenpairs.__init__ = init
                print(cfg, n, i, "rough", out[1], "capped", out[4], out[2], f"{time.process_time() - c:.2f}",
                      [(x.calls, x.krylov_accepted, x.exact_calls) for x in inst], flush=True)
            elif mode == "full":
                kw = {"dr_cap": None} if cfg == "none" else {"dr_cap": int(cfg.split(":")[0]),
                                                              "dr_cap_gap": float(cfg.split(":")[1])}
                RankOneNewtonBackend._rough_dual = timed
                line = solve_full(R, W, tol, **kw)
                RankOneNewtonBackend._rough_dual = orig_rough
                print(cfg, n, i, line, f"rough {rough_cpu[-1]:.2f}", flush=True)


if __name__ == "__main__":
    main()

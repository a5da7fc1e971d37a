"""Prototype (issue 15, n30 session; not in the library): the Newton Hessian product of ``rankone_newton`` with
the moment block in matrix form, against the generic one, at n = 30 after one solve. Exact, not faster
(``notes.md``).

Usage::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/n30/proto_matrix_hessian.py
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

import sosproj.sdp.backends.ssnal as ss
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver

EPS = 1e-10


def main() -> None:
    n = 30
    R = MomentRelaxation(unit_ball(n), 4)
    rng = np.random.default_rng([2026, n])
    prob = compile_support(R, 3, rng.standard_normal((n, n, n)))
    _, settings = support_route(R, "rankone_newton", 1e-7, 3)
    cap: dict = {}
    orig = ss.SsnalBackend._newton_dir

    def spy(self, grad, active, rtol):
        cap["self"], cap["active"] = self, active.copy()
        return orig(self, grad, active, rtol)

    ss.SsnalBackend._newton_dir = spy
    ConicSolver(prob, "rankone_newton", tol=1e-7, **settings).solve(on_fail="return")
    s, active = cap["self"], cap["active"]
    v = rng.standard_normal(s.A.shape[1])

    def hess(v: np.ndarray) -> np.ndarray:          # ssnal's generic product
        return s.p_diag * v + s.AT @ (s.rv * s._jac(s.A @ v, active)) + EPS * v

    blk = s.face_block
    sl = next(bsl for bsl, b in s.blocks if b is blk)
    AM = s.A[sl]
    assert np.all(np.diff(AM.indptr) == 1)
    cols, a, rvM = AM.indices, AM.data, s.rv[sl]
    pos = blk._gather                                # svec position of every matrix entry
    cls2d = cols[pos]
    coef2d = (a / blk.proj.scale)[pos]
    wc = coef2d * rvM[pos]
    dM = np.bincount(cols, weights=rvM * a * a, minlength=v.size)
    rest = np.setdiff1d(np.arange(s.A.shape[0]), np.arange(sl.start, sl.stop))
    Ar = s.A[rest]
    ArT = sp.csr_matrix(Ar.T)
    others = [(bsl, b) for bsl, b in s.blocks if b is not blk]

    def hess2(v: np.ndarray) -> np.ndarray:         # the moment block in matrix form
        H = np.take(v, cls2d) * coef2d
        Qn = blk.Qn
        HQ = H @ Qn
        G = Qn.T @ HQ
        Rr = HQ - Qn @ G
        C = np.empty_like(Rr)
        for j, (_, c) in enumerate(blk._resolvents()):
            C[:, j] = sla.cho_solve((c, True), Rr[:, j], check_finite=False)
        C -= Qn @ (Qn.T @ C)
        P = (0.5 * (Qn @ G) + C * (-blk.lam_n)) @ Qn.T
        corr = np.bincount(cls2d.ravel(), weights=(P * wc).ravel(), minlength=v.size)
        out = s.p_diag * v + EPS * v + dM * v - 2.0 * corr
        Av = np.zeros(s.A.shape[0])
        Av[rest] = Ar @ v
        jr = np.where(active, Av, 0.0)
        for bsl, b in others:
            jr[bsl] = b.jacobian(Av[bsl])
        return out + ArT @ (s.rv[rest] * jr[rest])

    def ms(f, reps: int = 100) -> float:
        t = time.perf_counter()
        for _ in range(reps):
            f(v)
        return (time.perf_counter() - t) / reps * 1e3

    h0, h1 = hess(v), hess2(v)
    print(f"relative difference {np.abs(h1 - h0).max() / np.abs(h0).max():.1e}")
    print(f"generic {ms(hess):.3f} ms, matrix form {ms(hess2):.3f} ms per product")


if __name__ == "__main__":
    main()

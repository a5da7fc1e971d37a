r"""Prototype: guess that the localizing block is zero at the optimum (the projection lands on the
sphere), solve with its rows as equalities, verify the KKT conditions of the original problem (the
equality multipliers, as a matrix, must be PSD), fall back to the original problem warm-started."""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.backends.lowrank import LowrankBackend
from sosproj.sdp.cones import Cones, project_cone, project_dual_cone
from sosproj.sdp.conic import ConicProblem


def face_problem(prob: ConicProblem, small: int) -> tuple[ConicProblem, np.ndarray, slice]:
    """Rows of the PSD blocks of order <= ``small`` moved to the zero cone; returns the problem, the
    row permutation (new row i = old row perm[i]) and the slice of the moved rows in the new order."""
    cones = prob.cones
    zero_rows, moved, kept_psd, kept_rows = [], [], [], []
    for kind, sl, d in cones.blocks():
        rows = np.arange(sl.start, sl.stop)
        if kind == "zero":
            zero_rows.append(rows)
        elif kind == "psd" and d <= small:
            moved.append(rows)
        elif kind == "psd":
            kept_psd.append(d)
            kept_rows.append(rows)
        else:
            raise ValueError("prototype: zero and psd cones only")
    perm = np.concatenate(zero_rows + moved + kept_rows)
    nz = sum(r.size for r in zero_rows)
    nm = sum(r.size for r in moved)
    A = sp.csr_matrix(prob.A)[perm]
    new = ConicProblem(prob.P, prob.q, sp.csc_matrix(A), prob.b[perm], Cones(zero=nz + nm, psd=tuple(kept_psd)),
                       offset=prob.offset)
    return new, perm, slice(nz, nz + nm)


class FaceBackend(LowrankBackend):
    name = "face"
    options = {**LowrankBackend.options, "face_small": 100, "face_tol_factor": 1.0}

    def __init__(self, problem, tol=1e-7, max_iter=None, time_limit=None, **options):
        opts = dict(options)
        small = int(opts.pop("face_small", 100))
        self.face_tol_factor = float(opts.pop("face_tol_factor", 1.0))
        self.full_problem = problem
        self.full_opts = dict(opts)
        fp, self.perm, self.moved = face_problem(problem, small)
        super().__init__(fp, tol * self.face_tol_factor, max_iter, time_limit, **opts)
        self.full_tol = tol

    def solve(self, q=None, warm_start=None):
        t0 = time.perf_counter()
        raw = super().solve(q, None)
        full = self.full_problem
        m = full.m
        y = np.zeros(m)
        s = np.zeros(m)
        y[self.perm] = raw.y
        x = raw.x
        s = full.b - full.A @ x
        # map back: cones of the full problem: project s onto K and y onto K*
        s_k = project_cone(s, full.cones)
        y_k = project_dual_cone(y, full.cones)
        res = full.residuals(x, y_k, s_k)
        extra = dict(raw.extra)
        extra.update({"face_iters": raw.iterations, "face_status": raw.status,
                      "face_full_res": [res["primal"], res["dual"], res["gap"]],
                      "face_neg_mult": float(np.linalg.norm(y_k - y))})
        if max(res["primal"], res["dual"], res["gap"]) <= self.full_tol:
            return RawSolution(x, y_k, s_k, "solved", "face", raw.iterations, time.perf_counter() - t0,
                               self.setup_time, extra)
        be = LowrankBackend(full, self.full_tol, **self.full_opts)
        r2 = be.solve(None, (x, y_k, s_k))
        extra["face_fallback_iters"] = r2.iterations
        return RawSolution(r2.x, r2.y, r2.s, r2.status, r2.raw_status, raw.iterations + r2.iterations,
                           time.perf_counter() - t0, self.setup_time, extra)

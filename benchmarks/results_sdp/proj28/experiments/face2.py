r"""Prototype: the dual face guess + polish (the brief's idea 1, on the multiplier's side).

At the optimum of a `dp` projection the moment block is strictly complementary, the multiplier Z is well
conditioned (its positive eigenvalues all above 1e-3 |Z|) and the primal block S has many eigenvalues between
1e-3 and 1e-8 of its norm (experiments/spectrum.py): the ADMM's tail waits for those. Phase 1: `lowrank` until
its residuals reach `face_start`. The face guess: V = the eigenvectors of the current multiplier block with
eigenvalues above `face_tau` times its largest. Phase 2: the same ADMM with the PSD cone of that block replaced
by the linear subspace F = {S : S V = 0} (projection P_U W P_U, P_U = I - V V', two products with V): an affine
fixed-point map, on which Anderson acceleration acts like restarted GMRES and no small eigenvalue has to be
resolved. Check: s and y projected on K and K*, the original problem's residuals recomputed; fallback:
`lowrank` warm-started from there.
"""
from __future__ import annotations

import time

import numpy as np

from sosproj.sdp.backends.admm import AdmmBackend
from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.backends.lowrank import LowrankBackend
from sosproj.sdp.cones import PSDProjector, project_cone, project_dual_cone, smat


class FaceProjector(PSDProjector):
    """Projection of a scaled-svec block onto the subspace {S : S V = 0} (V orthonormal columns)."""

    def __init__(self, d: int, V: np.ndarray) -> None:
        super().__init__(d)
        self.V = np.ascontiguousarray(V)
        self.calls = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        self.calls += 1
        W = self.matrix(v)
        V = self.V
        B = W @ V                     # d x k
        C = V.T @ B                   # k x k
        G = B - 0.5 * (V @ C)         # W V - V C / 2: P_U W P_U = W - G V' - V G'
        out = W - G @ V.T
        out -= V @ G.T
        return out.flat[self.lower] * self.scale


class DualFaceBackend(LowrankBackend):
    name = "dualface"
    options = {**LowrankBackend.options, "face_start": 1e-4, "face_tau": 1e-3, "face_tol_factor": 0.5,
               "face_max_iter": 300, "face_verbose": False}

    def solve(self, q=None, warm_start=None):
        o = self.options
        t0 = time.perf_counter()
        tol = self.tol
        self.tol = float(o["face_start"])
        raw1 = super().solve(q, warm_start)
        self.tol = tol
        extra = {"face_phase1_iters": raw1.iterations, "face_phase1_status": raw1.status}
        kind_sl = [(sl, d) for kind, sl, d in self.slices if kind == "psd"]
        sl, d = max(kind_sl, key=lambda t: t[1])
        Z = smat(raw1.y[sl], d)
        lam, U = np.linalg.eigh(Z)
        keep = lam > float(o["face_tau"]) * max(lam[-1], 1e-300)
        V = U[:, keep]
        extra["face_rank_Z"] = int(keep.sum())
        saved = self.psd_proj[d]
        self.psd_proj[d] = FaceProjector(d, V)
        try:
            self.tol = tol * float(o["face_tol_factor"])
            max_iter, self.max_iter = self.max_iter, int(o["face_max_iter"])
            self.verbose = bool(o["face_verbose"])
            raw2 = AdmmBackend.solve(self, None, (raw1.x, raw1.y, raw1.s))
        finally:
            self.tol, self.max_iter, self.verbose = tol, max_iter, False
            self.psd_proj[d] = saved
        extra.update({"face_phase2_iters": raw2.iterations, "face_phase2_status": raw2.status})
        prob = self.problem
        s = project_cone(raw2.s, prob.cones)
        y = project_dual_cone(raw2.y, prob.cones)
        res = prob.residuals(raw2.x, y, s)
        worst = max(res["primal"], res["dual"], res["gap"])
        extra.update({"face_full_res": [res["primal"], res["dual"], res["gap"]],
                      "face_proj_s": float(np.linalg.norm(s - raw2.s)),
                      "face_proj_y": float(np.linalg.norm(y - raw2.y))})
        its = raw1.iterations + raw2.iterations
        if raw2.status == "solved" and worst <= tol:
            return RawSolution(raw2.x, y, s, "solved", "face", its, time.perf_counter() - t0, self.setup_time, extra)
        raw3 = super().solve(None, (raw2.x, y, s))
        extra["face_fallback_iters"] = raw3.iterations
        return RawSolution(raw3.x, raw3.y, raw3.s, raw3.status, raw3.raw_status, its + raw3.iterations,
                           time.perf_counter() - t0, self.setup_time, extra)

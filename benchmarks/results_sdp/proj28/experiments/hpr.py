r"""Prototype: Halpern-anchored Peaceman-Rachford with restarts (HPR, Sun-Toh et al. HPR-LP/HPR-QP)
on the projection ADMM's splitting, in place of Anderson acceleration.

T_DR(w) is the ADMM map of :class:`AdmmBackend` (alpha = 1); T_PR = 2 T_DR - I (nonexpansive);
w_{k+1} = w_anchor / (k + 2) + (k + 1) / (k + 2) T_PR(w_k), restarted (anchor = current point,
k = 0) when ||w - T_DR(w)|| fell below `sufficient` times its value at the last restart, or below
`necessary` times it while rising, or after `long_frac` of the iterations so far; the penalty is
rebalanced (the ADMM's residual-balance rule) at restarts only.
"""
from __future__ import annotations

import time

import numpy as np

from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.backends.lowrank import LowrankBackend


class HprBackend(LowrankBackend):
    name = "hpr"
    options = {**LowrankBackend.options, "sufficient": 0.2, "necessary": 0.8, "long_frac": 0.2,
               "relax": 2.0, "balance": True}

    def solve(self, q=None, warm_start=None):
        if q is not None:
            self._q = np.asarray(q, dtype=float)
        q, b, m = self._q, self.problem.b, self.problem.m
        o = self.options
        suff, nec, long_frac, relax = (float(o["sufficient"]), float(o["necessary"]), float(o["long_frac"]),
                                       float(o["relax"]))
        t0 = time.perf_counter()
        w = np.zeros(m)
        anchor = w.copy()
        k = 0
        r_anchor = None
        r_prev = np.inf
        status = "max_iter"
        rel = (np.inf,) * 3
        x_prev = Ax_prev = None
        restarts = n_rho = 0
        it = 0
        x_out, s_out, y_out = np.zeros(self.problem.n), np.zeros(m), np.zeros(m)
        for it in range(1, self.max_iter + 1):
            w_dr, x, Ax, s, u = self._map(w, q, b)
            y = u * self.rv
            x_out, s_out, y_out = x, s, y
            r = float(np.linalg.norm(w - w_dr))
            if r_anchor is None:
                r_anchor = r
            if it % self.check_every == 0 or it == 1:
                Aty = self.AT @ y
                rel = self._residuals(x, Ax, s, y, Aty, q, b)
                pb = None
                if x_prev is not None:
                    pb = self._residuals(x_prev, Ax_prev, s, y, Aty, q, b)
                    if max(pb) < max(rel):
                        rel, x_out = pb, x_prev
                if self.verbose:
                    print(f"{it:6d} pres {rel[0]:.2e} dres {rel[1]:.2e} gap {rel[2]:.2e} rho {self.rho:.2e} "
                          f"r {r:.2e} k {k}")
                if max(rel) <= self.tol:
                    status = "solved"
                    break
            x_prev, Ax_prev = x, Ax
            t_pr = relax * w_dr - (relax - 1.0) * w
            restart = (r <= suff * r_anchor or (r <= nec * r_anchor and r > r_prev) or k >= long_frac * it)
            r_prev = r
            if restart and k > 0:
                restarts += 1
                w = w_dr
                if o["balance"] and pb is not None and pb[0] > 0 and pb[1] > 0:
                    ratio = float(np.sqrt(max(pb[0], self.gap_weight * pb[2]) / pb[1]))
                    if ratio > self.adapt_ratio or ratio < 1.0 / self.adapt_ratio:
                        new_rho = float(np.clip(self.rho * ratio, 1e-6, 1e6))
                        w = s - u * (self.rho / new_rho)
                        self.rho = new_rho
                        self._factor()
                        n_rho += 1
                        x_prev = Ax_prev = None
                anchor = w.copy()
                k = 0
                r_anchor = r
                r_prev = np.inf
                continue
            w = anchor / (k + 2.0) + (k + 1.0) / (k + 2.0) * t_pr
            k += 1
        wall = time.perf_counter() - t0
        return RawSolution(x_out, y_out, s_out, status, status, it, wall, self.setup_time,
                           {"admm_rho": self.rho, "admm_rho_updates": n_rho, "hpr_restarts": restarts,
                            "solver_res_pri": rel[0], "solver_res_dual": rel[1], "solver_gap": rel[2]})

r"""EXPERIMENT (issue 14, branch cube2; tried and NOT adopted, see docs/bench_peers.md): a semismooth Newton
augmented Lagrangian for the Boolean-cube weighted least squares, measured against the cube ADMM by
``benchmarks/cube_newton_study.py``. Kept beside its results as the record of what was measured; the
library's cube step is :class:`sosproj.sdp.cube_tables_admm.CubeTablesProjector`.

The problem is :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`'s,

.. math::  \min_f q(f) = \tfrac12\sum_{U\ne()} a_U (f_U - g_U)^2 \quad\text{s.t.}\quad M(f)\succeq 0,\ f_{()} = 1,

whose unmeasured moments (``a_U = 0``; on an all-3-way workload of 16 attributes the 1,820 order-4
moments) are free and not unique at the solution, so that a Newton method on ``q`` alone meets a
singular Hessian. :class:`CubeNewtonProjector` makes every subproblem strongly convex with a
*proximal* term on the unmeasured moments only, and solves

.. math::

    f^{k+1} \approx \arg\min_f\ q(f) + \frac{\mu}{2}\sum_{a_U = 0} (f_U - f^k_U)^2
        + \frac{1}{2\sigma}\bigl\|\Pi_+\bigl(Z^k - \sigma M(f)\bigr)\bigr\|_F^2,
    \qquad Z^{k+1} = \Pi_+\bigl(Z^k - \sigma M(f^{k+1})\bigr),

the proximal method of multipliers (R. T. Rockafellar, *Math. Oper. Res.* 1 (1976) 97-116, the
"proximal method of multipliers") on the splitting ``M(f)`` in the PSD cone; ``Z`` is the PSD
multiplier. Because the proximal centre moves to the last iterate, the regularization leaves no bias:
the limit is the exact projection, and the answer is judged by the *unregularized* weak-duality bound
of :mod:`sosproj.sdp.cube_gap` (valid for any feasible ``f`` and any PSD ``Z``; ``\mu`` only enters
``s_U = \mu (f_U - f^k_U)`` on the unmeasured moments, the box term that vanishes as the iterates
settle). Each subproblem is minimized by semismooth Newton with conjugate gradients (X.-Y. Zhao,
D. Sun and K.-C. Toh, *SIAM J. Optim.* 20 (2010) 1737-1765; H. Qi and D. Sun, *SIAM J. Matrix Anal.
Appl.* 28 (2006) 360-385): the gradient is

.. math::  \nabla = D(f - \bar g) - M^*\Pi_+(Y),\quad Y = Z - \sigma M(f),\quad D = \mathrm{diag}(a_U \text{ or } \mu),

and an element of its generalized Jacobian is :math:`D + \sigma M^* \mathcal J M`, with
:math:`\mathcal J[H] = P(\Omega\circ P^\top H P)P^\top` from ONE eigendecomposition
:math:`Y = P\,\mathrm{diag}(\lambda)P^\top`, :math:`\Omega_{ij} = (\lambda_i^+ - \lambda_j^+)/(\lambda_i - \lambda_j)`
(1 when both are positive, 0 when neither is). The Hessian is positive definite (``D >= min(a, mu) > 0``),
so every Newton system is solved by preconditioned CG (diagonal preconditioner) and an Armijo line
search on the subproblem's objective keeps the descent.

Stopping: the run ends when the certified distance of the returned feasible answer to the exact
projection, :math:`\|\hat f - f^\star\|_a` (:func:`~sosproj.sdp.cube_gap.certified_distance` with
``Z``), is at most ``gap_tol * sqrt(#measured moments)``, the same test as the ADMM's ``gap_tol``;
a run that reaches ``max_iter`` Newton steps is reported ``converged: False``.

>>> import numpy as np
>>> proj = CubeNewtonProjector(2, degree=2, weights=np.array([0., 1., 1., 1.]))
>>> f, info = proj.solve(np.array([1., 0., 0., 2.]))   # f_{01} = 2 is infeasible (|f| <= 1)
>>> round(float(f[3]), 4), info["converged"]
(1.0, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.policy import apply_on_fail, check_on_fail
from sosproj.sdp.cube_gap import certified_distance, measured_count
from sosproj.sdp.cube_init import cumulant_completion
from sosproj.sdp.cube_tables_admm import INITS, CubeTablesProjector
from sosproj.validation import check_choice, check_int, check_positive

#: keyword options accepted by :class:`CubeNewtonProjector`
OPTIONS = ("gap_tol", "max_iter", "sigma", "mu", "init", "basis", "cg_tol", "cg_max", "sigma_growth", "inner_rtol",
           "prox", "mu_rel", "sigma_max", "prec_full", "prec_diag", "prec_lowrank",
           "mu_decay")

#: default certified-distance threshold, a fraction of the noise scale ``sqrt(#measured)`` (module docs)
NEWTON_GAP_TOL = 1e-3
#: Armijo constant and backtracking factor of the line search
ARMIJO_C = 1e-4
ARMIJO_BETA = 0.5


def _omega(lam: np.ndarray) -> np.ndarray:
    r""":math:`\Omega_{ij} = (\lambda_i^+ - \lambda_j^+)/(\lambda_i - \lambda_j)` (1 or 0 on ties), the first
    divided differences of :math:`t \mapsto \max(t, 0)` (the Jacobian of the PSD projection)."""
    lp = np.maximum(lam, 0.0)
    num = lp[:, None] - lp[None, :]
    den = lam[:, None] - lam[None, :]
    pos = lam > 0
    same = np.where(pos[:, None] & pos[None, :], 1.0, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        om = np.where(np.abs(den) > 0, num / np.where(den == 0, 1.0, den), same)
    return np.where(pos[:, None] == pos[None, :], same, om)


class CubeNewtonProjector(CubeTablesProjector):
    r"""The cube projection of :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector` by a proximal
    augmented Lagrangian with semismooth Newton-CG subproblems (module docs).

    Options (keywords; others refused): ``gap_tol`` (default :data:`NEWTON_GAP_TOL`; the certified
    distance to the exact projection, a fraction of ``sqrt(#measured)``), ``max_iter`` (Newton steps in
    all, default 200), ``sigma`` (the penalty; default the median of ``a_U / count_U`` over the measured
    moments, as the ADMM's ``rho``), ``mu`` (the proximal weight of the unmeasured moments, default
    ``sigma``), ``init`` (``"zero"`` or ``"cumulant"``, the unmeasured moments' start), ``basis`` (as the
    ADMM's), ``cg_tol`` (relative CG residual, default 1e-2), ``cg_max`` (CG steps per Newton step, 50),
    ``prec_full`` / ``prec_diag`` / ``prec_lowrank`` (CG preconditioner: ``D + sigma count``, ``D`` plus the
    diagonal of ``J`` summed over each moment's positions, or :meth:`_lowrank_prec`; default ``D + sigma count``
    times the mean of ``Omega``), ``mu_rel`` (the proximal weight ``mu_rel * sigma``, following the penalty),
    ``mu_decay`` (else ``mu`` times this per outer iteration: a continuation), ``sigma_max`` (cap on
    ``sigma / sigma0``),
    ``sigma_growth`` (the penalty's factor per outer iteration, 4), ``inner_rtol`` (a subproblem ends when its
    gradient norm falls below this fraction of its first, 0.1), ``prox`` (default ``False``: the fixed
    regularization ``mu/2 ||f_U||^2`` of the brief, centre 0; ``True``: the proximal centre moves to the last
    iterate, no bias).
    All are constants or functions of the weights ``a`` (public noise scales): no data enters them.
    """

    def __init__(self, n: int, degree: int, weights: np.ndarray, **options: Any) -> None:
        from sosproj.policy import check_options

        check_options(options, OPTIONS, "CubeNewtonProjector")
        base = {k: options[k] for k in ("basis", "init") if k in options}
        super().__init__(n, degree, weights, **base)
        self.gap_tol = check_positive(options.get("gap_tol", NEWTON_GAP_TOL), "gap_tol")
        self.max_iter = check_int(options.get("max_iter", 200), "max_iter", minimum=1)
        self.sigma0 = check_positive(options.get("sigma", self.rho0), "sigma")
        self.mu = check_positive(options.get("mu", self.sigma0), "mu")
        self.cg_tol = check_positive(options.get("cg_tol", 1e-2), "cg_tol")
        self.cg_max = check_int(options.get("cg_max", 50), "cg_max", minimum=1)
        self.sigma_growth = check_positive(options.get("sigma_growth", 4.0), "sigma_growth")
        self.inner_rtol = check_positive(options.get("inner_rtol", 0.1), "inner_rtol")
        self.prox = bool(options.get("prox", False))
        mu_rel = options.get("mu_rel")
        self.mu_rel = None if mu_rel is None else check_positive(mu_rel, "mu_rel")
        self.sigma_max = check_positive(options.get("sigma_max", 1e12), "sigma_max")
        self.prec_full = bool(options.get("prec_full", False))
        self.prec_diag = bool(options.get("prec_diag", False))
        self.prec_lowrank = bool(options.get("prec_lowrank", False))
        self.mu_decay = check_positive(options.get("mu_decay", 1.0), "mu_decay")
        check_choice(self.init, "init", INITS)

    _trace = False
    #: per outer iteration (when ``_trace``): Newton and CG counts, penalty, certificate, box term
    trace: list[dict[str, float]]
    #: optional start ``(f, Z, sigma)`` (e.g. from a few ADMM iterations); ``None``: the module's start
    _start: tuple[np.ndarray, np.ndarray, float] | None = None

    # -- the subproblem ------------------------------------------------------------------------------------
    def _jac(self, P: np.ndarray, om: np.ndarray, v: np.ndarray) -> np.ndarray:
        r""":math:`M^* \mathcal J M v` with :math:`\mathcal J[H] = P(\Omega\circ P^\top H P)P^\top`."""
        H = self.moment_matrix(v)
        T = P.T @ H @ P
        return self.adjoint(P @ (om * T) @ P.T)

    def _lowrank_prec(self, P: np.ndarray, lam: np.ndarray, om: np.ndarray, prec: np.ndarray, D: np.ndarray,
                      sigma: float):
        r"""Woodbury preconditioner: the Newton matrix's positive-eigenspace block exactly,
        :math:`D' + \sigma T^* T` with :math:`T(v) = P_\alpha^\top M(v) P_\alpha` (``alpha``: the positive
        eigenvalues of ``Y``, where :math:`\Omega = 1`), and the rest of :math:`\mathcal J` by its diagonal in
        :math:`D'`. Cost: one ``nm x r(r+1)/2`` matrix and an ``r(r+1)/2`` Cholesky per Newton step."""
        import scipy.linalg as sla

        alpha = np.flatnonzero(lam > 0)
        r = alpha.size
        if r == 0:
            return None
        Pa = P[:, alpha]
        iu, ju = np.triu_indices(r)
        N = P.shape[0]
        O = (Pa[:, None, iu] * Pa[None, :, ju]).reshape(N * N, iu.size)
        O[:, iu != ju] *= math.sqrt(2.0)
        if getattr(self, "_S", None) is None:
            import scipy.sparse as sps
            self._S = sps.csr_matrix((np.ones(N * N), (self._pos_flat, np.arange(N * N))),
                                     shape=(self.n_moments, N * N))
        Tm = np.asarray(self._S @ O)
        Tm[0] = 0.0
        om_rest = om.copy()
        om_rest[np.ix_(alpha, alpha)] = 0.0
        P2 = P * P
        dp = D + sigma * self.adjoint(P2 @ om_rest @ P2.T)
        dp[0] = 1.0
        Td = Tm / dp[:, None]
        G = np.eye(iu.size) / sigma + Tm.T @ Td
        cf = sla.cho_factor(G, check_finite=False)

        def apply(v: np.ndarray) -> np.ndarray:
            return v / dp - Td @ sla.cho_solve(cf, Td.T @ v, check_finite=False)

        return apply

    def solve(self, g: np.ndarray, *, warm_start: bool = True, on_fail: str = "warn"
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Project the measurement ``g`` (Fourier-form targets); returns ``(f, info)`` as
        :meth:`CubeTablesProjector.solve` (``f`` feasible, ``f[0] = 1``), with ``info["stop"]`` ``"gap"`` or
        ``"max_iter"`` and ``info["certified_distance"]`` the returned answer's bound."""
        del warm_start
        check_on_fail(on_fail)
        t0 = time.perf_counter()
        nm = self.n_moments
        g = np.asarray(g, dtype=float).ravel()
        if g.size > nm or not np.all(np.isfinite(g)):
            raise InvalidParameterError("g must be finite with at most one entry per moment")
        gg = np.zeros(nm)
        gg[:g.size] = g
        a = self.a
        meas = a > 0
        meas[0] = False
        free = np.ones(nm, dtype=bool)
        free[0] = False
        unm = free & ~meas
        f = np.where(meas, gg, 0.0)
        f[0] = 1.0
        if self.init == "cumulant":
            f = cumulant_completion(self.index, f, a > 0)
        sigma, mu = self.sigma0, self.mu
        D = np.where(meas, a, mu)
        D[0] = 0.0
        target = self.gap_tol * math.sqrt(float(max(measured_count(a), 1)))
        N = self.basis_size
        Z = np.zeros((N, N))
        self.trace = []
        if self._start is not None:
            f, Z, sigma = self._start
            f = f.copy()
            D = np.where(meas, a, mu)
            D[0] = 0.0
        fbar = f.copy() if self.prox else np.zeros(nm)
        cnt = self.count

        def psi(fv: np.ndarray, lam: np.ndarray) -> float:
            return (0.5 * float(np.sum(np.where(meas, a * (fv - gg) ** 2, 0.0)))
                    + 0.5 * mu * float(np.sum((fv[unm] - fbar[unm]) ** 2))
                    + 0.5 / sigma * float(np.sum(np.maximum(lam, 0.0) ** 2)))

        newton = cg_total = outer = 0
        stop, converged = "max_iter", False
        dist = math.inf
        f_feas, theta = f, 0.0
        while newton < self.max_iter:
            outer += 1
            if self.mu_rel is not None:                    # the proximal weight follows the penalty
                mu = self.mu_rel * sigma
            elif outer > 1:
                mu = mu * self.mu_decay                     # continuation of the proximal weight
            D = np.where(meas, a, mu)
            D[0] = 0.0
            # ---- subproblem: semismooth Newton-CG on psi ----
            inner_tol = None
            while newton < self.max_iter:
                lam, P = np.linalg.eigh(Z - sigma * self.moment_matrix(f))
                Yp = (P * np.maximum(lam, 0.0)) @ P.T
                grad = D * (f - np.where(meas, gg, fbar)) - self.adjoint(Yp)
                grad[0] = 0.0
                gn = float(np.linalg.norm(grad))
                if inner_tol is None:
                    inner_tol = max(self.inner_rtol * gn, 1e-14)
                if gn <= inner_tol and newton > 0:
                    break
                newton += 1
                om = _omega(lam)
                frac = float(np.mean(om))
                if self.prec_diag:
                    # the diagonal of J as an operator on matrices, (P o P) Omega (P o P)^T, summed over each
                    # moment's positions (cross terms between positions of one moment left out)
                    P2 = P * P
                    prec = D + sigma * self.adjoint(P2 @ om @ P2.T)
                else:
                    prec = D + sigma * cnt * (1.0 if self.prec_full else frac)
                prec[0] = 1.0
                apply = self._lowrank_prec(P, lam, om, prec, D, sigma) if self.prec_lowrank else None
                # preconditioned CG on (D + sigma M^* J M) d = -grad
                d = np.zeros(nm)
                r = -grad
                zv = r / prec if apply is None else apply(r)
                p = zv.copy()
                rz = float(r @ zv)
                r0 = math.sqrt(float(r @ r))
                for _ in range(self.cg_max):
                    Hp = D * p + sigma * self._jac(P, om, p)
                    Hp[0] = 0.0
                    alpha = rz / float(p @ Hp)
                    d += alpha * p
                    r -= alpha * Hp
                    cg_total += 1
                    if math.sqrt(float(r @ r)) <= self.cg_tol * min(1.0, r0) * r0 + 1e-300:
                        break
                    zv = r / prec if apply is None else apply(r)
                    rz_new = float(r @ zv)
                    p = zv + (rz_new / rz) * p
                    rz = rz_new
                # Armijo line search on psi
                base = psi(f, lam)
                slope = float(grad @ d)
                step = 1.0
                for _ in range(30):
                    fn = f + step * d
                    lam_n = np.linalg.eigvalsh(Z - sigma * self.moment_matrix(fn))
                    if psi(fn, lam_n) <= base + ARMIJO_C * step * slope:
                        break
                    step *= ARMIJO_BETA
                f = fn
            # ---- multiplier and proximal centre ----
            lam, P = np.linalg.eigh(Z - sigma * self.moment_matrix(f))
            Z = (P * np.maximum(lam, 0.0)) @ P.T
            if self.prox:
                fbar = f.copy()
            f_feas, theta = self._feasible(f.copy())
            dist = certified_distance(self, f_feas, gg, Z)
            if self._trace:
                sU = self.adjoint(Z)
                self.trace.append({"outer": outer, "newton": newton, "cg": cg_total, "sigma": sigma,
                                   "certified_distance": dist, "theta": theta,
                                   "box": float(np.abs(sU[unm]).sum())})
            if dist <= target:
                stop, converged = "gap", True
                break
            sigma = min(sigma * self.sigma_growth, self.sigma_max * self.sigma0)
        obj = float(np.sum(a * (f_feas - gg) ** 2))
        info = {"solver": "newton-alm", "iterations": newton, "outer_iterations": outer, "cg_iterations": cg_total,
                "converged": converged, "stop": stop, "certified_distance": dist, "theta": theta,
                "sigma": sigma, "mu": mu, "objective_fourier": obj, "time": time.perf_counter() - t0,
                "moment_matrix_order": N, "degree": self.degree}
        msg = (f"the Newton ALM for the cube tables projection did not certify gap_tol={self.gap_tol:g} in "
               f"{self.max_iter} Newton steps; raise max_iter or gap_tol")
        apply_on_fail(converged, on_fail, msg, {**info, "value": f_feas})
        return f_feas, info


__all__ = ["CubeNewtonProjector", "NEWTON_GAP_TOL", "OPTIONS"]

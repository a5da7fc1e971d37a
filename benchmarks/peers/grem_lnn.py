r"""GReM-LNN (Mullins, Fuentes, Xiao, Kifer, Musco, Sheldon, NeurIPS 2024): residuals-to-marginals
reconstruction under local non-negativity, in numpy/scipy.  Benchmark peer; never imported by ``sosproj``.

Problem (the paper's GReM-LNN program, in the residual parametrization of ResidualPlanner's measurement;
notation of :mod:`peers.residual`): given noisy projected residuals ``r_A`` with scales ``sigma_A``,

    minimize_alpha   1/2 sum_A ||alpha_A - r_A||^2 / sigma_A^2          (Gaussian log-likelihood)
    subject to       alpha_A in range(P_A)  (mean zero along every axis)
                     mu_W(alpha) = sum_{A subset W} expand_W(alpha_A) / prod_{W \ A} n_i + m / prod_W n_i >= 0
                     for every workload marginal W (local non-negativity).

Consistency (shared sub-marginals agree) and totals ``= m`` hold by construction.  The paper solves it by
dual ascent on the non-negativity multipliers, each Lagrangian minimization being a closed-form GReM
(residuals-to-marginals) step.  Here: for ``lambda >= 0`` the Lagrangian is minimized by

    alpha(lambda) = r + D P M^T lambda,   D = diag(sigma_A^2),

because ``M^T M`` is diagonal on ``range(P)`` (:func:`gram_diagonal`).  Plain projected dual ascent on
``lambda`` converges slowly here (the dual is not strongly concave: many ``lambda`` give the same
``M^T lambda``), so we solve the same program by ADMM with the same closed-form primal step:
split ``z = mu(alpha)``, ``z >= 0``; ``alpha``-step ``(D^{-1} + rho C)^{-1} (D^{-1} r + rho P M^T (z - c - u))``,
``z = max(0, mu + u)``, ``u += mu - z`` (scaled dual, i.e. ``lambda = rho u``).  Cells still negative by
at most ``tol`` are clipped to zero in the returned tables.

Reference: B. Mullins et al., "Efficient and Private Marginal Reconstruction with Local Non-Negativity",
NeurIPS 2024 (arXiv:2410.01091).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .residual import ResidualMeasurement


def gram_diagonal(meas: ResidualMeasurement) -> np.ndarray:
    r"""Per-cell ``c_A = sum_{W >= A} 1 / prod_{W \ A} n_i``: on ``range(P)``, ``M^T M = diag(c_A)``.

    Expansions of residuals of different sets are orthogonal (each is mean zero along an axis the other
    does not depend on), and expanding a table of ``A`` into ``W`` repeats each cell ``prod_{W \ A} n_i``
    times with weight ``1 / prod_{W \ A} n_i``.  This diagonal Gram matrix is what makes every
    Lagrangian / ADMM primal step closed form (the paper's efficient GReM step).
    """
    wl = meas.wl
    c = np.zeros(len(wl.residuals))
    index = {a: j for j, a in enumerate(wl.residuals)}
    for w in wl.sets:
        for r in range(1, len(w) + 1):
            for a in itertools.combinations(w, r):
                c[index[a]] += 1.0 / math.prod(wl.sizes[i] for i in w if i not in a)
    return wl.residual_sigmas_flat(c)


def grem_lnn(meas: ResidualMeasurement, *, tol: float = 1e-2, max_iter: int = 5000, rho: float | None = None,
             relax: float = 1.6, return_info: bool = False):
    """Locally non-negative reconstruction of every workload table (flat, counts) from ``meas``.

    ADMM on ``min f(alpha) + I(z >= 0)`` s.t. ``M alpha + c = z`` (scaled form, residual balancing of
    ``rho``); the alpha step is closed form because ``M^T M`` is diagonal on ``range(P)``
    (:func:`gram_diagonal`).  Stops when the primal residual ``||M alpha + c - z||_inf`` and the change
    of ``z`` are both ``<= tol`` (counts).  With ``return_info`` also returns ``iterations``,
    ``primal_residual``, ``converged``.
    """
    wl = meas.wl
    cvec = meas.m * wl.inv_cells
    mu0 = wl.M @ meas.r + cvec
    if mu0.min() >= -tol:  # the unconstrained optimum (BLUE) is feasible up to tol
        info = {"iterations": 0, "primal_residual": float(max(0.0, -mu0.min())), "converged": True}
        out = np.maximum(mu0, 0.0)
        return (out, info) if return_info else out
    d_inv = 1.0 / wl.residual_sigmas_flat(meas.sigmas) ** 2
    g = gram_diagonal(meas)
    if rho is None:
        rho = float(np.median(d_inv / g))
    z = np.maximum(mu0, 0.0)
    u = np.zeros_like(z)
    dr = d_inv * meas.r
    pri = dual = math.inf
    it = 0
    mu = mu0
    for it in range(1, max_iter + 1):
        alpha = (dr + rho * wl.project(wl.M.T @ (z - cvec - u))) / (d_inv + rho * g)
        mu = wl.M @ alpha + cvec
        z_old = z
        mu_hat = relax * mu + (1.0 - relax) * z_old  # over-relaxation (Boyd et al. 2011, sec. 3.4.3)
        z = np.maximum(mu_hat + u, 0.0)
        u += mu_hat - z
        pri = float(np.max(np.abs(mu - z)))
        dual = float(np.max(np.abs(z - z_old)))
        if pri <= tol and dual <= tol:
            break
        if it % 20 == 0:  # residual balancing (Boyd et al. 2011, sec. 3.4.1)
            if pri > 10 * dual:
                rho *= 2.0
                u /= 2.0
            elif dual > 10 * pri:
                rho /= 2.0
                u *= 2.0
    out = np.maximum(mu, 0.0)
    info = {"iterations": it, "primal_residual": pri, "dual_change": dual,
            "converged": pri <= tol and dual <= tol}
    return (out, info) if return_info else out


__all__ = ["grem_lnn"]

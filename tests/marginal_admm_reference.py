"""Reference loop of :meth:`sosproj.sdp.marginal_admm.MarginalProjector.solve_state` (kept for tests).

The ``(z, u)`` / ``(X, U)`` iteration as of commit 243c883 (before the one-vector ``s = z + u`` form
with reused buffers), copied with its arithmetic unchanged: ``tests/test_marginal_admm_fast.py``
checks that the shipped loop produces the same iterates, the same stopping iteration, the same
penalty and the same released residuals. Also the small noisy layout the kernel and overhead tests share
(:func:`negative_residuals`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from sosproj.data.residuals import ResidualLayout
from sosproj.sdp.marginal_admm import MarginalProjector, ProjectorState, _psd_part

__all__ = ["reference_solve_state", "reference_theta"]


def reference_theta(proj: MarginalProjector, t: np.ndarray, total: float) -> float:
    """The mixing weight as computed before (cell by cell, over the negative cells)."""
    neg = t < 0
    if not np.any(neg):
        return 0.0
    uni = total * proj._uniform
    return float(np.max(-t[neg] / (uni[neg] - t[neg])))


def reference_solve_state(proj: MarginalProjector, r_noisy: np.ndarray,
                          warm_start: ProjectorState | None = None) -> tuple[np.ndarray, dict, ProjectorState]:
    """The previous loop; returns the residuals before the final mixing, a few diagnostics, the state."""
    lay, mo = proj.layout, proj.moment
    rt = np.asarray(r_noisy, dtype=float)
    total = float(rt[proj._empty])
    wr = proj.w * rt
    if warm_start is None:
        rho = proj.rho0
        r = rt.copy()
        z = np.maximum(lay.forward(r), 0.0)
        u = np.zeros_like(z)
    else:
        rho = warm_start.rho
        r = warm_start.r.copy()
        r[proj._empty] = total
        z, u = warm_start.z.copy(), warm_start.u.copy()
    if mo is not None:
        X = _psd_part(mo.forward(r))
        U = np.zeros_like(X)
    converged = False
    alpha = proj.alpha
    it = 0
    for it in range(1, proj.max_iter + 1):
        rhs = wr + rho * lay.adjoint(z - u)
        if mo is not None:
            rhs += rho * mo.adjoint(X - U)
        r = rhs / (proj.w + rho * proj.d)
        r[proj._empty] = total
        Br = lay.forward(r)
        z_old = z
        Bh = alpha * Br + (1.0 - alpha) * z_old
        z = np.maximum(Bh + u, 0.0)
        u += Bh - z
        if mo is not None:
            Mr = mo.forward(r)
            X_old = X
            Mh = alpha * Mr + (1.0 - alpha) * X_old
            X = _psd_part(Mh + U)
            U += Mh - X
        if it % 5 and it != proj.max_iter:
            continue
        p2 = float(np.sum((Br - z) ** 2))
        dual = lay.adjoint(z - z_old)
        nb = float(np.sum(Br ** 2))
        if mo is not None:
            p2 += float(np.sum((Mr - X) ** 2))
            dual += mo.adjoint(X - X_old)
            nb += float(np.sum(Mr ** 2))
        rp = math.sqrt(p2)
        rd = rho * float(np.linalg.norm(dual))
        nu = float(np.linalg.norm(u))
        eps_p = proj.tol * (1.0 + math.sqrt(nb))
        eps_d = proj.tol * (1.0 + rho * nu)
        theta_now = reference_theta(proj, Br, total)
        if theta_now <= proj.tol and rd <= eps_d and (mo is None or rp <= eps_p):
            converged = True
            break
        ratio = math.sqrt(max(rp / (1.0 + math.sqrt(nb)), 1e-300) / max(rd / (1.0 + rho * nu), 1e-300))
        if ratio > 3.0 or ratio < 1.0 / 3.0:
            ratio = min(max(ratio, 1e-2), 1e2)
            rho *= ratio
            u /= ratio
            if mo is not None:
                U /= ratio
    return r, {"iterations": it, "converged": converged, "rho": rho}, ProjectorState(r=r.copy(), z=z, u=u, rho=rho)


def negative_residuals(seed: int, sizes: tuple[int, ...] = (3, 2, 4, 2, 3)) -> tuple[ResidualLayout, np.ndarray]:
    """A small all-3-way categorical layout and the residuals of 40 random records' tables plus N(0, 2^2) noise per
    cell: tables with negative cells, the LNN dual's typical input (shared by the kernel and overhead tests)."""
    rng = np.random.default_rng(seed)
    lay = ResidualLayout(sizes, list(itertools.combinations(range(len(sizes)), 3)))
    X = rng.integers(0, np.array(sizes), size=(40, len(sizes)))
    tabs = []
    for w in lay.workload:
        t = np.zeros([sizes[a] for a in w])
        np.add.at(t, tuple(X[:, a] for a in w), 1.0)
        tabs.append(t + rng.normal(0, 2.0, t.shape))
    return lay, lay.residuals_of_tables(tabs)

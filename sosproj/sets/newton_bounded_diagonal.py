r"""Exact projection onto :math:`\{X \succeq 0,\ X_{ii} \le b\}` through its dual.

The projection of a symmetric :math:`Y` onto
:math:`S_b = \{X \in \mathbb{S}^n : X \succeq 0,\ X_{ii} \le b\}` (the set of the
paper's Algorithm 3, private cosine similarities) solves

.. math:: \min_X \tfrac12\|X - Y\|_F^2 \quad\text{s.t.}\quad X \succeq 0,\ \operatorname{diag}(X) \le b.

Dualizing only the diagonal bounds with multipliers :math:`z \ge 0` gives the
convex, once continuously differentiable dual (Qi and Sun 2006; Gao and Sun 2009
for bound constraints)

.. math::
   \theta(z) = \tfrac12\|\Pi_+(Y - \operatorname{Diag} z)\|_F^2 + b\,\mathbf 1^T z,\qquad
   \nabla\theta(z) = b\mathbf 1 - \operatorname{diag}\Pi_+(Y - \operatorname{Diag} z),

minimized over :math:`z \ge 0`; the primal solution is
:math:`X^\star = \Pi_+(Y - \operatorname{Diag} z^\star)` (:math:`\Pi_+` zeroes the negative
eigenvalues). One function evaluation is one symmetric eigendecomposition
:math:`Y - \operatorname{Diag} z = Q\Lambda Q^T`.

Two solvers share that machinery:

* :func:`bounded_diagonal_newton`: projected semismooth Newton (Bertsekas' projected
  Newton with an :math:`\epsilon`-active set and Armijo search along the projection arc)
  using the generalized Hessian
  :math:`V h = \operatorname{diag}\big(Q(\Omega \circ (Q^T \operatorname{Diag}(h) Q))Q^T\big)`
  with :math:`\Omega_{ij} = (\lambda_i^+ - \lambda_j^+)/(\lambda_i - \lambda_j)`
  (1 on positive pairs, 0 on non-positive pairs), applied matrix-free inside a
  diagonally preconditioned conjugate gradient;
* :func:`bounded_diagonal_dykstra`: Dykstra's alternating projections between the PSD
  cone and the half-spaces :math:`X_{ii} \le b`. Its iterates coincide with projected
  gradient steps :math:`z \leftarrow (z - \nabla\theta(z))_+` on the same dual (the
  Dykstra correction of the half-space step is :math:`\operatorname{Diag}(z)`), so it is
  run in that form and shares the certificate below.

Certificate. Both stop on the relative natural KKT residual

.. math:: r(z) = \frac{\|\min(z,\ b\mathbf 1 - \operatorname{diag} X(z))\|_2}{1 + b\sqrt n},

which covers diagonal feasibility, :math:`z \ge 0` and complementarity (the PSD
conditions :math:`X \succeq 0`, :math:`X - (Y - \operatorname{Diag} z) \preceq 0`,
:math:`\langle X, X - Y + \operatorname{Diag} z\rangle = 0` hold by construction). The
output is made exactly feasible by the congruence :math:`DXD`,
:math:`D_{ii} = \min(1, \sqrt{b / X_{ii}})` (computed on a factor
:math:`X = GG^T`, so it stays PSD), and the duality gap
:math:`p(X_{\rm out}) - d(z) \ge 0` yields the certified distance bound
:math:`\|X_{\rm out} - \Pi_{S_b}(Y)\|_F \le \sqrt{2\,\mathrm{gap}}` (strong convexity).

Examples
--------
>>> import numpy as np
>>> Y = np.array([[2.0, 1.5], [1.5, 0.5]])
>>> X, info = bounded_diagonal_newton(Y)
>>> bool(np.all(np.diag(X) <= 1.0)), bool(np.linalg.eigvalsh(X)[0] >= -1e-12)
(True, True)
>>> info.converged, info.extra["eigendecompositions"] <= 10
(True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.errors import InvalidInputError, ProjectionError
from sosproj.policy import OnFail, check_on_fail
from sosproj.sets.base import ProjectionInfo, handle_nonconvergence
from sosproj.validation import check_array, check_int, check_nonnegative, check_positive

# Newton parameters (tuned on noisy Gram matrices, n = 10..1000; see docs/cosine.md)
MU_CAP = 1e-3      # initial kappa in the Hessian regularization mu_k = min(kappa_k, ||r_k||)
MU_MIN, MU_MAX, MU_UP, MU_DOWN = 1e-6, 1.0, 10.0, 0.3   # kappa range and update factors
LS_BACKTRACKS = 3  # halvings of the Newton step before falling back to a projected gradient step
CG_CAP = 0.1       # largest relative CG tolerance


# --------------------------------------------------------------------------- dual oracle


@dataclass
class _DualPoint:
    """One evaluation of the dual at ``z``: the eigendecomposition of ``Y - Diag z`` and derived data."""

    z: np.ndarray
    lam: np.ndarray          # eigenvalues, ascending
    Q: np.ndarray            # eigenvectors (columns)
    pos: np.ndarray          # boolean mask lam > 0
    diag_x: np.ndarray       # diag(Pi_+(Y - Diag z))
    theta: float             # dual objective (to be minimized)
    grad: np.ndarray         # b - diag_x


class _Dual:
    """Evaluates :math:`\\theta` and counts eigendecompositions."""

    def __init__(self, Y: np.ndarray, bound: float) -> None:
        self.Y = Y
        self.bound = bound
        self.n = Y.shape[0]
        self.evals = 0
        self._diag_idx = np.diag_indices(self.n)

    def shifted(self, p: _DualPoint, t: float) -> _DualPoint:
        """The dual point at ``p.z + t * 1`` from ``p``'s eigendecomposition (no new ``eigh``)."""
        lam = p.lam - t
        z = p.z + t
        pos = lam > 0
        lp = lam[pos]
        Qp = p.Q[:, pos]
        diag_x = (Qp * Qp) @ lp
        theta = 0.5 * float(lp @ lp) + self.bound * float(z.sum())
        return _DualPoint(z, lam, p.Q, pos, diag_x, theta, self.bound - diag_x)

    def __call__(self, z: np.ndarray) -> _DualPoint:
        M = self.Y.copy()
        M[self._diag_idx] -= z
        try:
            lam, Q = np.linalg.eigh(M)
        except np.linalg.LinAlgError as exc:  # pragma: no cover - LAPACK failure is rare
            raise ProjectionError("the eigendecomposition inside the bounded-diagonal projection did not "
                                  "converge; check the input for extreme magnitudes",
                                  {"method": "newton", "eigendecompositions": self.evals}) from exc
        self.evals += 1
        pos = lam > 0
        lp = lam[pos]
        Qp = Q[:, pos]
        diag_x = (Qp * Qp) @ lp
        theta = 0.5 * float(lp @ lp) + self.bound * float(z.sum())
        return _DualPoint(z, lam, Q, pos, diag_x, theta, self.bound - diag_x)


def _best_shift(lam: np.ndarray, total: float) -> float:
    r"""The :math:`t \ge 0` minimizing :math:`\frac12\sum_i(\lambda_i - t)_+^2 + t\,\mathrm{total}`.

    Optimality: :math:`\sum_i (\lambda_i - t)_+ = \mathrm{total}` (0 if already below at
    :math:`t = 0`); solved exactly by sorting, like a simplex projection.
    """
    if np.maximum(lam, 0.0).sum() <= total:
        return 0.0
    if total <= 0.0:
        return float(np.max(lam))
    s = np.sort(lam)[::-1]
    css = np.cumsum(s) - total
    k = np.arange(1, s.size + 1)
    rho = np.nonzero(s - css / k > 0)[0][-1]
    return max(float(css[rho] / (rho + 1)), 0.0)


def _natural_residual(p: _DualPoint) -> np.ndarray:
    """``min(z, grad)``: zero exactly at a KKT point of ``min theta s.t. z >= 0``."""
    return np.minimum(p.z, p.grad)


# ------------------------------------------------------------------ generalized Hessian


class _Jacobian:
    r"""Matrix-free generalized Hessian :math:`V_{FF}` of :math:`\theta` restricted to rows/cols ``F``.

    Uses the block structure of :math:`\Omega` (ones on positive pairs, zeros on
    non-positive pairs): with :math:`r` positive eigenvalues a product costs
    :math:`O(n\,|F|\,\min(r, n-r))` flops instead of :math:`O(n^3)`, switching to the
    complement :math:`\Omega = \mathbf 1\mathbf 1^T - \bar\Omega` when :math:`r > n/2`
    (then :math:`Q(\mathbf 1\mathbf 1^T \circ W)Q^T = \operatorname{Diag}(h)`).
    """

    def __init__(self, p: _DualPoint, free: np.ndarray) -> None:
        lam, Q, pos = p.lam, p.Q, p.pos
        r = int(pos.sum())
        n = lam.size
        QF = Q[free]
        self.nF = QF.shape[0]
        self.trivial: float | None = None
        if r == 0:
            self.trivial = 0.0
        elif r == n:
            self.trivial = 1.0
        else:
            la, lb = lam[pos], lam[~pos]
            denom = la[:, None] - lb[None, :]          # > 0: positive minus non-positive
            if r <= n - r:
                # direct: V h = diag(Qa Waa Qa^T) + 2 diag(Qa (Om o Wab) Qb^T)
                self.sign, self.base = 1.0, 0.0
                self.QS, self.QO = QF[:, pos], QF[:, ~pos]      # "same" block (all-ones) and "other"
                self.Om = la[:, None] / denom                    # r x (n-r)
            else:
                # complement: V h = h - diag(Qb Wbb Qb^T) - 2 diag(Qb (Omc^T o Wba) Qa^T)
                self.sign, self.base = -1.0, 1.0
                self.QS, self.QO = QF[:, ~pos], QF[:, pos]
                self.Om = (-lb[None, :] / denom).T               # (n-r) x r
            PS, PO = self.QS * self.QS, self.QO * self.QO
            self.diag = self.base + self.sign * (PS.sum(axis=1) ** 2 + 2.0 * np.einsum(
                "ij,ij->i", PS @ self.Om, PO))

    def diagonal(self) -> np.ndarray:
        if self.trivial is not None:
            return np.full(self.nF, self.trivial)
        return self.diag

    def matvec(self, h: np.ndarray) -> np.ndarray:
        if self.trivial is not None:
            return self.trivial * h
        HS = h[:, None] * self.QS
        Wss = self.QS.T @ HS
        t1 = np.einsum("ij,ij->i", self.QS @ Wss, self.QS)
        Wso = HS.T @ self.QO
        t2 = np.einsum("ij,ij->i", self.QS @ (self.Om * Wso), self.QO)
        return self.base * h + self.sign * (t1 + 2.0 * t2)


def _pcg(op: _Jacobian, mu: float, rhs: np.ndarray, rtol: float, max_iter: int) -> tuple[np.ndarray, int]:
    """Preconditioned CG for ``(V_FF + mu I) d = rhs`` with the Jacobi preconditioner."""
    prec = 1.0 / np.maximum(op.diagonal() + mu, 1e-12)
    x = np.zeros_like(rhs)
    r = rhs.copy()
    target = rtol * float(np.linalg.norm(rhs))
    if float(np.linalg.norm(r)) <= target:
        return x, 0
    zr = prec * r
    p = zr.copy()
    rz = float(r @ zr)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - iteration count is returned
        Ap = op.matvec(p) + mu * p
        pAp = float(p @ Ap)
        if pAp <= 0:  # pragma: no cover - cannot happen for a PSD operator plus mu > 0
            break
        a = rz / pAp
        x += a * p
        r -= a * Ap
        if float(np.linalg.norm(r)) <= target:
            break
        zr = prec * r
        rz_new = float(r @ zr)
        p = zr + (rz_new / rz) * p
        rz = rz_new
    return x, it


# ------------------------------------------------------------------------ finishing


def _finish(Y: np.ndarray, p: _DualPoint, bound: float) -> tuple[np.ndarray, dict[str, Any]]:
    """Primal point ``D X D`` (exactly PSD factor form, diag <= bound) and its certificate."""
    lp = p.lam[p.pos]
    G = p.Q[:, p.pos] * np.sqrt(lp)
    row_sq = np.einsum("ij,ij->i", G, G)
    over = row_sq > bound
    d = np.ones_like(row_sq)
    d[over] = np.sqrt(bound / row_sq[over])
    X = G @ G.T
    X = 0.5 * (X + X.T)
    s = bound - row_sq                         # slack of the unscaled point
    gap = float(p.z @ s)
    if np.any(over):
        E = (np.outer(d, d) - 1.0) * X
        gap += float(np.vdot(E, X - Y)) + 0.5 * float(np.vdot(E, E))
        X = X + E
    idx = np.diag_indices_from(X)
    X[idx] = np.minimum(X[idx], bound)
    gap = max(gap, 0.0)
    cert = {
        "primal_infeasibility": float(np.linalg.norm(np.maximum(-s, 0.0))),
        "complementarity": float(abs(p.z @ s)),
        "duality_gap": gap,
        "distance_bound": math.sqrt(2.0 * gap),
        "rescaled_rows": int(over.sum()),
        "active_bounds": int(np.sum(p.z > 0)),
        "rank": int(p.pos.sum()),
        "dual_objective": 0.5 * float(np.vdot(Y, Y)) - p.theta,
    }
    return X, cert


def _check_common(Y: Any, bound: Any, tol: Any, max_iter: Any, z0: Any, on_fail: Any
                  ) -> tuple[np.ndarray, float, float, int, np.ndarray, str]:
    Y = check_array(Y, "Y", ndim=2)
    if Y.shape[0] != Y.shape[1]:
        raise InvalidInputError(f"Y must be a square matrix; got shape {Y.shape}")
    Y = 0.5 * (Y + Y.T)
    bound = check_nonnegative(bound, "bound")
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", minimum=0)
    check_on_fail(on_fail)
    n = Y.shape[0]
    if z0 is None:
        z = np.zeros(n)
    else:
        z = check_array(z0, "z0", ndim=1, shape=(n,))
        z = np.maximum(z, 0.0)
    return Y, bound, tol, max_iter, z, on_fail


# --------------------------------------------------------------------------- solvers


def bounded_diagonal_newton(Y: Any, bound: float = 1.0, *, tol: float = 1e-9, max_iter: int = 200,
                            z0: Any = None, cg_max_iter: int = 100, on_fail: OnFail = "raise"
                            ) -> tuple[np.ndarray, ProjectionInfo]:
    r"""Project ``Y`` onto :math:`\{X \succeq 0, X_{ii} \le b\}` by projected semismooth Newton on the dual.

    Minimizes :math:`\theta(z) = \frac12\|\Pi_+(Y - \mathrm{Diag}\,z)\|_F^2 + b\sum_i z_i`
    over :math:`z \ge 0` (see the module docstring): at each iterate the
    :math:`\epsilon`-active set :math:`\{z_i \le \epsilon_k, \nabla_i\theta > 0\}` takes a
    gradient step, the free set a Newton step solved by Jacobi-preconditioned CG on
    :math:`(V_{FF} + \mu_k I)d_F = -\nabla_F\theta` with
    :math:`\mu_k = \min(\kappa_k, \|r(z_k)\|)` (:math:`\kappa_k` adapted Levenberg-Marquardt
    style) and relative CG tolerance :math:`\min(10^{-1}, \|r(z_k)\|)` (superlinear rate),
    then an Armijo search along :math:`z(\alpha) = (z + \alpha d)_+` (Bertsekas 1982),
    with a projected gradient step as fallback after three halvings. One
    eigendecomposition per trial point. Stops when the relative natural KKT residual
    is at most ``tol``.

    Parameters
    ----------
    Y : square matrix (its symmetric part is used).
    bound : the diagonal bound :math:`b \ge 0`.
    tol : relative KKT residual to reach (``1e-9`` by default).
    max_iter : Newton iterations cap (0 only tests the starting point).
    z0 : warm start for the dual (length ``n``, clipped at 0); default zeros, which
        makes inputs whose PSD part already satisfies the bounds cost one ``eigh``; when
        they do not, the best uniform multiplier :math:`z = t\mathbf 1` (which shares the
        eigenvectors of :math:`Y`, hence costs no ``eigh``) is used if it lowers :math:`\theta`.
    cg_max_iter : cap on CG iterations per Newton step.
    on_fail : what to do when the cap is hit: ``"raise"`` (ProjectionError with the
        diagnostics and the feasible but inexact point), ``"warn"``, or ``"return"``;
        the returned info then has ``converged=False`` and ``exact=False``.

    Returns
    -------
    (X, info) : ``X`` is symmetric, PSD (a congruence of a Gram factor) with
        ``diag(X) <= bound``; ``info.residual`` is the relative KKT residual and
        ``info.extra`` holds ``eigendecompositions``, ``cg_iterations``, ``duality_gap``,
        ``distance_bound`` (certified :math:`\|X - \Pi(Y)\|_F` bound), ``dual`` (the
        multipliers :math:`z`, reusable as ``z0``) and the KKT parts.

    >>> import numpy as np
    >>> X, info = bounded_diagonal_newton(4.0 * np.eye(3))   # solved by the uniform shift z = 3
    >>> np.allclose(X, np.eye(3)), info.iterations, info.extra["eigendecompositions"]
    (True, 0, 1)
    """
    t0 = time.perf_counter()
    Y, bound, tol, max_iter, z, on_fail = _check_common(Y, bound, tol, max_iter, z0, on_fail)
    cg_max_iter = check_int(cg_max_iter, "cg_max_iter", minimum=1)
    n = Y.shape[0]
    scale = 1.0 + bound * math.sqrt(n)
    dual = _Dual(Y, bound)
    p = dual(z)
    res = float(np.linalg.norm(_natural_residual(p))) / scale
    if res > tol and z0 is None:
        # free warm start: the best uniform multiplier z = t*1 shares p's eigenvectors
        ps = dual.shifted(p, _best_shift(p.lam, bound * n))
        if ps.theta < p.theta:
            p = ps
            res = float(np.linalg.norm(_natural_residual(p))) / scale
    it, cg_total, ls_fail, gradient_steps = 0, 0, False, 0
    sigma_armijo = 1e-4
    kappa = MU_CAP
    while res > tol and it < max_iter:
        it += 1
        z, g = p.z, p.grad
        eps_k = min(1e-3, res * scale)
        active = (z <= eps_k) & (g > 0)
        free = ~active
        d = np.zeros(n)
        d[active] = -g[active]
        if np.any(free):
            op = _Jacobian(p, free)
            mu = max(min(kappa, res * scale), 1e-12)
            dF, cg_it = _pcg(op, mu, -g[free], min(CG_CAP, res * scale), cg_max_iter)
            cg_total += cg_it
            d[free] = dF
            # guard: the free-set step must be a descent direction
            if float(g[free] @ dF) >= 0:  # pragma: no cover - PCG on an SPD system gives descent
                d[free] = -g[free]
        alpha, accepted = 1.0, False
        for _ in range(LS_BACKTRACKS + 1):
            zn = np.maximum(z + alpha * d, 0.0)
            pred = -alpha * float(g[free] @ d[free]) + float(g[active] @ (z[active] - zn[active]))
            pn = dual(zn)
            decrease = p.theta - pn.theta
            if decrease >= sigma_armijo * pred:
                accepted = True
            else:
                # below the floating-point resolution of theta, accept a step that
                # reduces the KKT residual (the Armijo test is then meaningless)
                floor = 64.0 * np.finfo(float).eps * max(1.0, abs(p.theta))
                if pred <= floor and abs(decrease) <= floor:
                    rn = float(np.linalg.norm(_natural_residual(pn))) / scale
                    accepted = rn < res
            if accepted:
                break
            alpha *= 0.5
        if not accepted:
            # safeguard: the projected gradient step (one Dykstra step; theta is 1-smooth,
            # so theta decreases by at least ||z+ - z||^2 / 2) instead of more backtracking
            gradient_steps += 1
            pn = dual(np.maximum(z - g, 0.0))
            rn = float(np.linalg.norm(_natural_residual(pn))) / scale
            if not (pn.theta < p.theta or rn < res):
                ls_fail = True
                break
        # Levenberg-Marquardt-like control of the regularization: a rejected unit step
        # signals a (nearly) singular generalized Hessian, e.g. at low-rank solutions
        kappa = max(kappa * MU_DOWN, MU_MIN) if alpha == 1.0 else min(kappa * MU_UP, MU_MAX)
        p = pn
        res = float(np.linalg.norm(_natural_residual(p))) / scale
    X, cert = _finish(Y, p, bound)
    converged = res <= tol
    info = ProjectionInfo(
        "newton", iterations=it, residual=res, converged=converged, exact=converged,
        time=time.perf_counter() - t0,
        extra={"eigendecompositions": dual.evals, "cg_iterations": cg_total, "tol": tol,
               "line_search_failed": ls_fail, "gradient_steps": gradient_steps, "dual": p.z.copy(), **cert})
    handle_nonconvergence(info, on_fail, "the Newton projection onto {X PSD, diag(X) <= bound}", X)
    return X, info


def bounded_diagonal_dykstra(Y: Any, bound: float = 1.0, *, tol: float = 1e-9, max_iter: int = 5000,
                             z0: Any = None, on_fail: OnFail = "raise",
                             max_time: float | None = None) -> tuple[np.ndarray, ProjectionInfo]:
    r"""Project ``Y`` onto :math:`\{X \succeq 0, X_{ii} \le b\}` by Dykstra's algorithm (baseline).

    Dykstra between the PSD cone and the half-spaces :math:`X_{ii} \le b` started at
    :math:`Y` keeps :math:`Y = x_k + p_k + q_k` with the half-space correction
    :math:`q_k = \mathrm{Diag}(z_k)`, so its PSD step is
    :math:`\Pi_+(Y - \mathrm{Diag}\,z_k)` and its correction update is the projected
    gradient step :math:`z_{k+1} = (z_k - \nabla\theta(z_k))_+` on the dual of
    :func:`bounded_diagonal_newton` (step 1 = 1/Lipschitz constant). It is run in that
    form, one eigendecomposition per iteration, with the same stopping rule and
    certificate as the Newton method. Converges to the projection (Boyle-Dykstra
    1986), linearly at best.

    ``max_time`` (seconds) optionally stops early (reported as not converged).

    >>> import numpy as np
    >>> X, info = bounded_diagonal_dykstra(np.array([[2.0, 1.5], [1.5, 0.5]]), tol=1e-8)
    >>> info.converged, bool(np.all(np.diag(X) <= 1.0))
    (True, True)
    """
    t0 = time.perf_counter()
    Y, bound, tol, max_iter, z, on_fail = _check_common(Y, bound, tol, max_iter, z0, on_fail)
    if max_time is not None:
        max_time = check_positive(max_time, "max_time")
    n = Y.shape[0]
    scale = 1.0 + bound * math.sqrt(n)
    dual = _Dual(Y, bound)
    p = dual(z)
    res = float(np.linalg.norm(_natural_residual(p))) / scale
    it = 0
    while res > tol and it < max_iter:
        if max_time is not None and time.perf_counter() - t0 > max_time:
            break
        it += 1
        p = dual(np.maximum(p.z - p.grad, 0.0))
        res = float(np.linalg.norm(_natural_residual(p))) / scale
    X, cert = _finish(Y, p, bound)
    converged = res <= tol
    info = ProjectionInfo(
        "dykstra", iterations=it, residual=res, converged=converged, exact=converged,
        time=time.perf_counter() - t0,
        extra={"eigendecompositions": dual.evals, "tol": tol, "dual": p.z.copy(), **cert})
    handle_nonconvergence(info, on_fail, "Dykstra's projection onto {X PSD, diag(X) <= bound}", X)
    return X, info


__all__ = ["bounded_diagonal_newton", "bounded_diagonal_dykstra"]

r"""Semismooth Newton augmented Lagrangian for conic least squares (``solver="ssnal"``).

Solves the canonical problem of :mod:`sosproj.sdp.conic`,
:math:`\min \tfrac12 x^\top P x + q^\top x` s.t. :math:`b - Ax \in\mathcal K`, by the
augmented Lagrangian method whose subproblems are solved by a semismooth Newton method
with preconditioned conjugate gradients (SDPNAL+ / QSDPNAL, Zhao-Sun-Toh 2010,
Yang-Sun-Toh 2015, Li-Sun-Toh 2018). The variable :math:`x` (the moments) is the small
side here, so the Newton systems live in :math:`\mathbb R^n`.

**Augmented Lagrangian.** With a penalty :math:`\sigma_r > 0` per row (constant on each
cone block, :math:`\Sigma = \operatorname{diag}(\sigma)`) and a multiplier
:math:`y\in\mathcal K^*`, eliminating the slack :math:`s\in\mathcal K` gives

.. math::

    \varphi(x) = \tfrac12 x^\top P x + q^\top x
      + \tfrac12 \|\Sigma^{-1/2}\Pi_{\mathcal K^*}(W(x))\|^2,\qquad W(x) = y + \Sigma(Ax - b),

a convex, once continuously differentiable function with
:math:`\nabla\varphi(x) = Px + q + A^\top\Pi_{\mathcal K^*}(W(x))`. After the subproblem
the multiplier becomes :math:`y^+ = \Pi_{\mathcal K^*}(W)` and the slack
:math:`s = \Sigma^{-1}\Pi_{\mathcal K}(-W)` (Moreau), so :math:`s\in\mathcal K`,
:math:`y^+\in\mathcal K^*`, :math:`s^\top y^+ = 0` exactly, the primal residual is
:math:`Ax + s - b = \Sigma^{-1}(y^+ - y)` and the dual residual is :math:`\nabla\varphi(x)`.

**Semismooth Newton.** A generalized Hessian is
:math:`P + A^\top \Sigma\, \mathcal J A` with :math:`\mathcal J\in\partial\Pi_{\mathcal K^*}(W)`:
the identity on the zero cone's dual (free) rows, the indicator of :math:`W > 0` on the
nonnegative rows and, on a PSD block :math:`W = Q\,\mathrm{diag}(\lambda)Q^\top`,

.. math::

    \mathcal J[H] = Q\bigl(\Omega\circ(Q^\top H Q)\bigr)Q^\top,\quad
    \Omega = \begin{pmatrix} E & \nu\\ \nu^\top & 0\end{pmatrix},\quad
    \nu_{ij} = \frac{\lambda_i}{\lambda_i - \lambda_j}\ (\lambda_i > 0 \ge \lambda_j),

applied in :math:`O(d^2 r)` with :math:`r = \min(\#\{\lambda > 0\}, \#\{\lambda\le 0\})`
(from the smaller eigenspace, :math:`\mathcal J[H] = H - Q((1-\Omega)\circ Q^\top HQ)Q^\top`
when few eigenvalues are negative). The Newton equation
:math:`(P + A^\top\Sigma\mathcal JA + \varepsilon I)d = -\nabla\varphi` is solved by CG
preconditioned with :math:`(P + A^\top \Sigma A)^{-1}`, which is the ADMM's closed-form
linear step (diagonal + Woodbury, :class:`~sosproj.sdp.backends.admm.AdmmBackend`, whose
workspace this backend extends); an Armijo backtracking on :math:`\varphi` globalizes it.
Each Newton step costs one eigendecomposition per PSD block (the line search's trial
point) and a few dozen Jacobian products.

**Phase one.** As in SDPNAL+, the structured ADMM first runs to the looser ``admm_tol``
(its :math:`x, y` and penalty start the Newton phase). The status is ``"solved"`` only
when the relative residuals and gap of the returned triple reach ``tol``; iteration caps
and time limits are reported as such (``"max_iter"``, ``"time_limit"``), a failed line
search as ``"inaccurate"`` with the best point found.

Problems with second-order cones raise :class:`~sosproj.errors.SolverNotAvailableError`
(no Jacobian is implemented for them), as do those without the ADMM's structure.

>>> import numpy as np, scipy.sparse as sp
>>> from sosproj.sdp.conic import ConicProblem, Cones
>>> # nearest point of the PSD cone (order 2) to diag(1, -1): diag(1, 0)
>>> prob = ConicProblem(2 * sp.identity(3, format="csc"), np.array([-2.0, 0.0, 2.0]),
...                     -sp.identity(3, format="csc"), np.zeros(3), Cones(psd=(2,)), offset=2.0)
>>> sol = SsnalBackend(prob, tol=1e-10, admm_tol=1e-2).solve()
>>> sol.status, np.round(sol.x, 8).tolist()
('solved', [1.0, 0.0, 0.0])
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from sosproj.errors import InvalidParameterError, SolverNotAvailableError
from sosproj.sdp.backends.admm import AdmmBackend
from sosproj.sdp.backends.base import RawSolution
from sosproj.sdp.cones import Cones, PSDProjector
from sosproj.sdp.conic import ConicProblem, relative_residuals

#: Newton steps (all subproblems together) when the caller gives no ``max_iter``
DEFAULT_MAX_NEWTON = 300

#: column chunk of the Woodbury capacitance's products (:meth:`SsnalBackend._woodbury`): bounds their
#: temporaries to a fraction of an ``N x N`` matrix (peak memory)
WOODBURY_CHUNK = 128

#: the penalty grows to at most this multiple of phase one's (beyond it the Newton systems lose
#: the residual's digits to rounding)
SIGMA_MAX_RATIO = 1e4

#: a subproblem whose gradient has not fallen by 10% in this many Newton steps is left as it is;
#: the method stops ("inaccurate") when, at the largest penalty, the residuals have not fallen by
#: 10% in this many updates
STALL_STEPS = 5


class _PsdBlock:
    """Eigendecomposition of one PSD block of ``W`` in scaled svec (SCS order): projection and Jacobian."""

    def __init__(self, d: int, single: bool = True) -> None:
        self.proj = PSDProjector(d)
        self.d = d
        self.buf = np.zeros((d, d))
        self.lam = np.zeros(d)
        self.Q = np.eye(d)
        self.npos = d
        self.single = single
        self._factors: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def to_matrix(self, v: np.ndarray) -> np.ndarray:
        M = np.empty((self.d, self.d))
        vals = v / self.proj.scale
        M.flat[self.proj.lower] = vals
        M.flat[self.proj.upper] = vals
        return M

    def to_svec(self, M: np.ndarray) -> np.ndarray:
        return M.flat[self.proj.lower] * self.proj.scale

    def decompose(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Eigendecompose ``smat(w)``; return ``(Pi_+(w), Pi_+(-w))`` in svec."""
        M = self.to_matrix(w)
        lam, Q = np.linalg.eigh(M)
        return self._set_full(w, M, lam, Q)

    def _set_full(self, w: np.ndarray, M: np.ndarray, lam: np.ndarray,
                  Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keep the full eigendecomposition ``M = Q diag(lam) Q'`` (``M = smat(w)``, ascending ``lam``) for
        :meth:`jacobian`; return ``(Pi_+(w), Pi_+(-w))`` in svec."""
        self.lam, self.Q = lam, Q
        self._factors = None
        neg = int(np.searchsorted(lam, 0.0, side="right"))     # eigenvalues <= 0 first
        self.npos = self.d - neg
        if neg == 0:
            return w.copy(), np.zeros_like(w)
        if neg == self.d:
            return np.zeros_like(w), -w
        if neg <= self.npos:
            Qn = Q[:, :neg]
            Mneg = (Qn * lam[:neg]) @ Qn.T            # the negative part (<= 0)
            plus = self.to_svec(M - Mneg)
            return plus, -self.to_svec(Mneg)
        Qp = Q[:, neg:]
        plus_m = (Qp * lam[neg:]) @ Qp.T
        plus = self.to_svec(plus_m)
        return plus, plus - w

    def jacobian_diag(self) -> np.ndarray:
        r"""Approximate diagonal of :math:`\mathcal J` in scaled svec coordinates.

        Entry :math:`(k, l)` is :math:`(S\Omega S^\top)_{kl}` with :math:`S = Q\circ Q`: exact on the
        diagonal (:math:`k = l`) and for :math:`\mathcal J = I`; off the diagonal it drops the term
        :math:`(Q_k\circ Q_l)^\top\Omega(Q_k\circ Q_l)`, which vanishes when :math:`\Omega` is constant.
        """
        d, npos = self.d, self.npos
        if npos in (0, d):
            return np.full(self.proj.lower.size, 1.0 if npos == d else 0.0)
        neg = d - npos
        lp, ln = self.lam[neg:], self.lam[:neg]
        nu = lp[:, None] / (lp[:, None] - ln[None, :])              # npos x neg
        S = self.Q * self.Q
        Sn, Sp = S[:, :neg], S[:, neg:]
        # S Om S' with Om = [[0, nu'], [nu, 1 1']] (negative eigenvalues first): the positive-positive part is the
        # rank-one u u' (u = S_p 1), the cross parts S_p nu S_n' and its transpose; O(N^2 min(neg, npos)) instead of
        # the O(N^3) products S Om S' (issue 15's session 30: ~550 GFlop per Newton step at order 5,151)
        u = Sp.sum(axis=1)
        if neg <= npos:
            X, Y = Sp @ nu, Sn                                          # T = u u' + X Y' + Y X'
        else:
            X, Y = Sn @ nu.T, Sp
        P = X @ Y.T
        P += np.multiply.outer(0.5 * u, u)
        return np.take(P, self.proj.lower) + np.take(P, self.proj.upper)      # svec(P + P')

    def jacobian(self, h: np.ndarray) -> np.ndarray:
        r"""Apply :math:`\mathcal J\in\partial\Pi_{\mathcal S_+}` at the decomposed point to ``h``."""
        d, npos = self.d, self.npos
        if npos == d:
            return h.copy()
        if npos == 0:
            return np.zeros_like(h)
        Qa, Qb, wt = self._jac_factors()
        H = self.to_matrix(h).astype(Qa.dtype)
        U = H @ Qa                                  # d x a
        G = Qa.T @ U                                # a x a
        T = wt * (U.T @ Qb)                         # a x b
        L = 0.5 * (G @ Qa.T) + T @ Qb.T             # a x d
        part = Qa @ L
        part += part.T
        out = self.to_svec(part).astype(float)
        return out if npos <= d - npos else h - out

    def _jac_factors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(Q_a, Q_b, weights)`` of the smaller eigenspace ``a`` (cached per decomposition)."""
        if self._factors is None:
            d, npos = self.d, self.npos
            neg = d - npos
            lam, Q = self.lam, self.Q
            lp, ln = lam[neg:], lam[:neg]
            nu = lp[:, None] / (lp[:, None] - ln[None, :])          # npos x neg, in (0, 1]
            if npos <= neg:     # J[H] = Qp G Qp' + Qp (nu o Qp'HQn) Qn' + transpose
                Qa, Qb, wt = Q[:, neg:], Q[:, :neg], nu
            else:               # J[H] = H - [Qn G Qn' + Qn ((1 - nu)' o Qn'HQp) Qp' + transpose]
                Qa, Qb, wt = Q[:, :neg], Q[:, neg:], (1.0 - nu).T
            dt = np.float32 if self.single else np.float64
            self._factors = (np.ascontiguousarray(Qa, dtype=dt), np.ascontiguousarray(Qb, dtype=dt),
                             wt.astype(dt))
        return self._factors


class SsnalBackend(AdmmBackend):
    """A compiled semismooth Newton augmented Lagrangian workspace (see the module docs).

    Settings (besides the ADMM's own, which drive phase one): ``admm_tol`` (phase-one
    tolerance, 1e-4), ``admm_max_iter`` (phase-one cap, 2000), ``sigma_factor`` (penalty
    growth when the primal residual stalls, 3), ``cg_max_iter`` (per Newton step, 200),
    ``cg_rtol`` (relative CG tolerance, adapted to the gradient), ``max_outer`` (augmented
    Lagrangian updates, 100), ``jd_floor`` (floor of the Jacobian's diagonal in the CG
    preconditioner, 1e-2), ``single_jacobian`` (Jacobian products in float32, True; the line
    search and every residual stay in float64), ``tangent_precond`` (True: on a block whose Jacobian defect has
    an exact low-rank form, a face with few negative eigenvalues, the CG preconditioner is the exact inverse of
    the Newton matrix by Woodbury, :meth:`_woodbury`; False: the diagonal one only, as before issue 15's n30b
    session), ``tangent_reuse`` (0: rebuild that preconditioner every Newton step; a positive tolerance keeps it
    while the penalty and active rows are the same and the kept negative eigenpairs moved by less than it, relative
    eigenvalue and sine of the angle, :meth:`_reused_precond`; issue 15's session 28), ``newton_verbose``.
    ``max_iter`` caps the Newton steps (default :data:`DEFAULT_MAX_NEWTON`); the reported iterations are ADMM
    iterations plus Newton steps.

    ``inner_target`` (attribute, default ``None``): when set, the subproblems end at a relative dual
    residual of at most this (the smaller of it and the usual ``max(0.2 tol, min(0.1 * last primal
    residual, 1e-2))``); a caller whose stopping test needs a small dual residual (``rankone_newton``'s
    certificate) sets it between updates.

    ``stop_check`` (attribute, default ``None``): a callable ``(x, y, s) -> bool`` called after every
    multiplier update; when it returns ``True`` the solve stops there and returns that triple with
    status ``"solved"`` and raw status ``"stopped by the caller's check"`` (the caller vouches for it:
    ``solver="rankone_newton"`` certifies each multiplier, ``docs/bench_support.md``).
    """

    name = "ssnal"
    warm_start = True
    options = {**AdmmBackend.options, "admm_tol": 1e-4, "admm_max_iter": 2000, "sigma_factor": 3.0,
               "cg_max_iter": 200, "cg_rtol": 1e-2, "max_outer": 100, "jd_floor": 1e-2,
               "single_jacobian": True, "tangent_precond": True, "tangent_reuse": 0.0,
               "newton_verbose": False}

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """The ADMM's workspace plus twelve CG and line-search vectors (length n + m) and four dense
        matrices of the largest block order (eigenvectors, their float32 copies, the preconditioner's
        diagonal products)."""
        dmax = max(cones.psd, default=0)
        return int(AdmmBackend.estimate_memory(n, cones, nnz_A, nnz_P) + 8 * 12 * (n + cones.dim)
                   + 8 * 4 * dmax * dmax)

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **options)
        if problem.cones.soc:
            raise SolverNotAvailableError("the ssnal backend has no second-order cone Jacobian; use solver='admm'")
        o = self.options
        self.admm_tol = float(o["admm_tol"])
        self.admm_max_iter = int(o["admm_max_iter"])
        self.sigma_factor = float(o["sigma_factor"])
        self.cg_max_iter = int(o["cg_max_iter"])
        self.cg_rtol = float(o["cg_rtol"])
        self.max_outer = int(o["max_outer"])
        self.newton_verbose = bool(o["newton_verbose"])
        self.jd_floor = float(o["jd_floor"])
        self.tangent_precond = bool(o["tangent_precond"])
        self.tangent_reuse = float(o["tangent_reuse"])
        self._precond_cache: tuple[Any, ...] | None = None
        self.precond_reused = 0
        self._block_AT: dict[tuple[int, int], tuple[Any, ...]] = {}
        self.stop_check: Callable[[np.ndarray, np.ndarray, np.ndarray], bool] | None = None
        self.inner_target: float | None = None
        if not (self.admm_tol > 0 and self.sigma_factor >= 1.0 and self.cg_max_iter >= 1
                and 0.0 < self.cg_rtol < 1.0 and self.max_outer >= 1 and self.admm_max_iter >= 0
                and 0.0 <= self.tangent_reuse < 1.0):
            raise InvalidParameterError("ssnal options: admm_tol > 0, sigma_factor >= 1, cg_max_iter >= 1, "
                                        "0 < cg_rtol < 1, max_outer >= 1, admm_max_iter >= 0, 0 <= tangent_reuse < 1")
        self.max_newton = int(max_iter) if max_iter else DEFAULT_MAX_NEWTON
        single = bool(o["single_jacobian"])
        self.blocks = [(sl, _PsdBlock(d, single)) for kind, sl, d in self.slices if kind == "psd" and d > 1]
        self.nonneg_rows = np.concatenate(
            [np.arange(sl.start, sl.stop) for kind, sl, d in self.slices
             if kind == "nonneg" or (kind == "psd" and d == 1)] or [np.zeros(0, dtype=int)])
        self.zero_rows = np.concatenate(
            [np.arange(sl.start, sl.stop) for kind, sl, _ in self.slices if kind == "zero"]
            or [np.zeros(0, dtype=int)])
        self._built()

    # ---------------------------------------------------------------- the AL function
    def _split(self, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(Pi_{K*}(W), Pi_K(-W), active)``; eigendecompositions are kept for :meth:`_jac`."""
        yp = np.zeros_like(W)
        sm = np.zeros_like(W)
        z = self.zero_rows
        yp[z] = W[z]
        r = self.nonneg_rows
        yp[r] = np.maximum(W[r], 0.0)
        sm[r] = np.maximum(-W[r], 0.0)
        for sl, blk in self.blocks:
            yp[sl], sm[sl] = blk.decompose(W[sl])
        active = np.zeros(W.size, dtype=bool)
        active[z] = True
        active[r] = W[r] > 0
        return yp, sm, active

    def _jac(self, h: np.ndarray, active: np.ndarray) -> np.ndarray:
        out = np.where(active, h, 0.0)
        for sl, blk in self.blocks:
            out[sl] = blk.jacobian(h[sl])
        return out

    def _phi(self, x: np.ndarray, y: np.ndarray, q: np.ndarray, b: np.ndarray) -> tuple[float, dict[str, Any]]:
        Ax = self.A @ x
        W = y + self.rv * (Ax - b)
        yp, sm, active = self._split(W)
        Px = self.p_diag * x
        val = 0.5 * float(x @ Px) + float(q @ x) + 0.5 * float(yp @ (yp / self.rv))
        return val, {"Ax": Ax, "W": W, "yp": yp, "sm": sm, "active": active, "Px": Px, "x": x}

    def _preconditioner(self, active: np.ndarray) -> tuple[np.ndarray, Any]:
        """Factor ``P + A' diag(sigma * j) A`` with ``j`` the (approximate) diagonal of ``J``, floored."""
        jd = np.where(active, 1.0, 0.0)
        for sl, blk in self.blocks:
            jd[sl] = blk.jacobian_diag()
        return self.normal_factor(self.rv * np.maximum(jd, self.jd_floor))

    def _woodbury(self, fac: tuple[np.ndarray, Any]) -> Callable[[np.ndarray], np.ndarray] | None:
        r"""The CG preconditioner with the exact Jacobian of a block on a rank-one face (issue 15, n30b).

        A block whose ``tangent()`` gives :math:`I - \mathcal J = S\mathcal NS^\top` (:math:`k\le`
        ``TANGENT_MAX_NEGATIVE`` negative eigenvalues, :meth:`~sosproj.sdp.partial_newton.PartialPsdBlock.tangent`)
        and whose penalty is one
        :math:`\sigma` turns the Newton matrix into :math:`K - \sigma E\mathcal NE^\top`, :math:`E = A_b^\top S`
        (:math:`n\times Nk`, sparse), :math:`K` the diagonal-Jacobian normal matrix of :meth:`_preconditioner`.
        Woodbury: :math:`(K - \sigma E\mathcal NE^\top)^{-1} = K^{-1} + K^{-1}E\,\Gamma^{-1}E^\top K^{-1}` with
        the capacitance :math:`\Gamma = \mathcal N^{-1}/\sigma - E^\top K^{-1}E` (order :math:`Nk`, one
        Cholesky; :math:`K^{-1}` is diagonal plus the coupled rows' Woodbury, so :math:`E^\top K^{-1}E` costs
        two sparse products and one small solve). CG still runs against the true Hessian (the float
        rounding and the ``eps`` shift are all that is left to it). ``None`` (the diagonal preconditioner)
        without such a block, with several, or when :math:`\Gamma` is not numerically positive definite.
        """
        faces = []
        for sl, blk in self.blocks:
            tan = getattr(blk, "tangent", None)
            t = tan() if tan is not None else None
            if t is None:
                continue
            rv = self.rv[sl]
            if rv.size == 0 or float(np.ptp(rv)) > 0.0:
                return None
            faces.append((sl, float(rv[0]), t))
        if len(faces) != 1:
            return None
        sl, sig, (S, Ninv) = faces[0]
        del faces, t                    # S's values are not needed once E is built (peak memory)
        img = self._tangent_image(sl, S)
        assert img is not None
        E, ET = img
        del S
        Dinv, K_chol = fac
        DE = sp.csc_matrix((E.data * Dinv[E.indices], E.indices, E.indptr), shape=E.shape)
        gam = Ninv                      # the block's own array: updated in place
        gam /= sig
        ncol = gam.shape[1]
        chunks = [slice(a, min(ncol, a + WOODBURY_CHUNK)) for a in range(0, ncol, WOODBURY_CHUNK)]
        for c in chunks:                # column chunks: no N x N sparse product at once (peak memory)
            gam[:, c] -= (ET @ DE[:, c]).toarray()
        if K_chol is not None:          # K^{-1} = D^{-1} - D^{-1}C' Kc^{-1} C D^{-1}, Kc = L L'
            CDE = self.C @ DE
            CDE = CDE.toarray() if sp.issparse(CDE) else np.asarray(CDE)
            CDE = sla.solve_triangular(K_chol[0], CDE, lower=bool(K_chol[1]), trans=0 if K_chol[1] else 1,
                                       check_finite=False, overwrite_b=True)
            for c in chunks:
                gam[:, c] += CDE.T @ CDE[:, c]
            del CDE
        del DE
        try:
            gchol = sla.cho_factor(gam, lower=True, check_finite=False, overwrite_a=True)
        except np.linalg.LinAlgError:
            return None

        def apply(r: np.ndarray) -> np.ndarray:
            z = self.normal_solve(r, fac)
            w = sla.cho_solve(gchol, ET @ z, check_finite=False)
            return z + self.normal_solve(E @ w, fac)

        return apply

    def _face_key(self) -> list[tuple[np.ndarray, np.ndarray]] | None:
        """The kept negative eigenpairs of every block with ``tangent_vectors`` (``None`` if a block has none)."""
        out = []
        for _, blk in self.blocks:
            fn = getattr(blk, "tangent_vectors", None)
            if fn is None:
                continue
            v = fn()
            if v is None:
                return None
            out.append(v)
        return out

    def _keep_precond(self, active: np.ndarray, precond: Callable[[np.ndarray], np.ndarray] | None) -> None:
        """Remember a Woodbury preconditioner for :meth:`_reused_precond` (``tangent_reuse > 0`` only)."""
        self._precond_cache = None
        if precond is None or self.tangent_reuse <= 0:
            return
        key = self._face_key()
        if key:
            self._precond_cache = (self.rho, active.copy(), [(lam.copy(), Q.copy()) for lam, Q in key], precond)

    def _reused_precond(self, active: np.ndarray) -> Callable[[np.ndarray], np.ndarray] | None:
        r"""The last Newton step's Woodbury preconditioner when the face barely moved (``tangent_reuse``):
        the same penalty and active rows, the same number of kept negative eigenpairs, each eigenvalue within
        ``tangent_reuse`` relative and each eigenvector within ``tangent_reuse`` in :math:`\sin`\ angle
        (:math:`1 - |q_{old}^\top q_{new}| \le` ``tangent_reuse`` :math:`^2/2`). It is then the exact inverse of a
        nearby Newton matrix: CG (always against the true Hessian) may need a few more steps, and the capacitance
        (a sparse product, an order-:math:`N` Cholesky; about 1.3 s at order 2,145) is not rebuilt."""
        c = self._precond_cache
        if c is None or self.tangent_reuse <= 0:
            return None
        rho, act, old, precond = c
        if rho != self.rho or not np.array_equal(act, active):
            return None
        new = self._face_key()
        if not new or len(new) != len(old):
            return None
        tol = self.tangent_reuse
        for (l0, Q0), (l1, Q1) in zip(old, new):
            if l0.shape != l1.shape or np.any(np.abs(l1 - l0) > tol * np.abs(l0)):
                return None
            if np.any(1.0 - np.abs(np.sum(Q0 * Q1, axis=0)) > 0.5 * tol * tol):
                return None
        self.precond_reused += 1
        return precond

    def prepare_tangent(self) -> None:
        """Build the maps of :meth:`_tangent_image` now for every block with a ``tangent_pattern`` (a caller
        that swaps in such a block calls it before the solve: the build's temporaries, a few ``N x N`` index
        arrays, then do not add to the Newton phase's peak memory)."""
        for sl, blk in self.blocks:
            pat = getattr(blk, "tangent_pattern", None)
            if pat is not None and self.tangent_precond:
                indices, indptr, _, _ = pat()
                S = sp.csc_matrix((np.ones(indices.size), indices, indptr),
                                  shape=(sl.stop - sl.start, indptr.size - 1))
                self._tangent_image(sl, S, build_only=True)

    def _tangent_image(self, sl: slice, S: sp.csc_matrix, build_only: bool = False
                       ) -> tuple[sp.csc_matrix, sp.csr_matrix] | None:
        """``E = A_b' S`` and its transpose for the block rows ``sl``. ``S`` is ``k`` column blocks of one
        pattern, fixed per block (:meth:`~sosproj.sdp.partial_newton.PartialPsdBlock.tangent`), so the
        product's pattern and the map from one block's ``S.data`` to its ``E.data`` (a weighted class sum)
        are built once (one ``bincount`` per column block and Newton step after that)."""
        key = (sl.start, sl.stop)
        d = int(round((np.sqrt(8 * S.shape[0] + 1) - 1) / 2))      # the block's order: S has k blocks of d columns
        k = S.shape[1] // d
        nnz1 = S.nnz // k
        tmpl = self._block_AT.get(key)
        if tmpl is None or tmpl[0] != nnz1:
            Ab = self.A[sl].tocsr()
            p = S.indices[:nnz1]                            # svec row of each entry of the first block
            cnt = np.diff(Ab.indptr)[p]
            if np.all(cnt == 1):                            # one moment per entry (the moment matrix)
                t = None
                at = Ab.indptr[p]
            else:
                t = np.repeat(np.arange(nnz1, dtype=np.int32), cnt)
                at = np.repeat(Ab.indptr[p] - np.cumsum(cnt) + cnt, cnt) + np.arange(cnt.sum())
            del cnt
            n = self.A.shape[1]
            keys = np.repeat(np.arange(d, dtype=np.int64) * n, np.diff(S.indptr[:d + 1]))
            if t is not None:
                keys = keys[t]
            keys += Ab.indices[at]
            uniq, pos = np.unique(keys, return_inverse=True)
            del keys
            weight = Ab.data[at]
            e_idx = (uniq % n).astype(np.int32)
            e_ptr = np.searchsorted(uniq, np.arange(d + 1, dtype=np.int64) * n).astype(np.int32)
            tmpl = (nnz1, pos.astype(np.int32), weight, t, e_idx, e_ptr)
            del uniq, pos, at
            self._block_AT[key] = tmpl
        if build_only:
            return None
        _, pos, weight, t, e_idx, e_ptr = tmpl
        ne = e_idx.size

        def image(v: np.ndarray) -> np.ndarray:
            return np.bincount(pos, weights=weight * (v if t is None else v[t]), minlength=ne)

        n, ncols = self.A.shape[1], S.shape[1]
        if k == 1:
            data, idx, ptr = image(S.data), e_idx, e_ptr
        else:
            data = np.concatenate([image(S.data[j * nnz1:(j + 1) * nnz1]) for j in range(k)])
            idx = np.tile(e_idx, k)
            ptr = np.concatenate([e_ptr[:-1] + j * ne for j in range(k)] + [[k * ne]]).astype(np.int32)
        return (sp.csc_matrix((data, idx, ptr), shape=(n, ncols)),
                sp.csr_matrix((data, idx, ptr), shape=(ncols, n)))

    @staticmethod
    def _subproblem_dres(grad: np.ndarray, st: dict[str, Any], q: np.ndarray) -> float:
        r"""The Newton subproblem's relative dual residual
        :math:`\|g\|_\infty / (1 + \max(\|Px\|_\infty, \|A^\top y_+\|_\infty, \|q\|_\infty))` at the
        gradient :math:`g = Px + q + A^\top y_+` of :meth:`_phi`'s state ``st`` (the inner loop's stopping
        quantity)."""
        Aty = grad - st["Px"] - q
        return float(np.linalg.norm(grad, np.inf)) / (
            1.0 + max(float(np.linalg.norm(st["Px"], np.inf)), float(np.linalg.norm(Aty, np.inf)),
                      float(np.linalg.norm(q, np.inf))))

    def _newton_dir(self, grad: np.ndarray, active: np.ndarray, rtol: float) -> tuple[np.ndarray, int]:
        """PCG on ``(P + A' S J A + eps I) d = -grad`` preconditioned by ``(P + A' S diag(J) A)^{-1}``."""
        eps = 1e-10 * (1.0 + float(np.max(self.p_diag)))
        precond = self._reused_precond(active)
        if precond is None:
            fac = self._preconditioner(active)
            precond = self._woodbury(fac) if self.tangent_precond else None
            self._keep_precond(active, precond)
        if precond is None:
            def precond(r: np.ndarray) -> np.ndarray:
                return self.normal_solve(r, fac)

        def hess(v: np.ndarray) -> np.ndarray:
            return self.p_diag * v + self.AT @ (self.rv * self._jac(self.A @ v, active)) + eps * v

        d = np.zeros_like(grad)
        r = -grad
        z = precond(r)
        p = z.copy()
        rz = float(r @ z)
        target = rtol * float(np.linalg.norm(r))
        k = 0
        while k < self.cg_max_iter:
            k += 1
            Hp = hess(p)
            pHp = float(p @ Hp)
            if pHp <= 0:
                break
            a = rz / pHp
            d += a * p
            r -= a * Hp
            if float(np.linalg.norm(r)) <= target:
                break
            z = precond(r)
            rz_new = float(r @ z)
            p = z + (rz_new / rz) * p
            rz = rz_new
        if not np.any(d):
            d = -self._solve_H(grad)
        return d, k

    # ---------------------------------------------------------------- solve
    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Phase one (structured ADMM to ``admm_tol``), then the semismooth Newton AL to ``tol``."""
        if q is not None:
            self._q = np.asarray(q, dtype=float)
        q = self._q
        b = self.problem.b
        t0 = time.perf_counter()
        self._precond_cache = None
        # ---- phase one: the ADMM of the parent class, to a loose tolerance
        tol, max_iter = self.tol, self.max_iter
        self.tol, self.max_iter = max(self.admm_tol, tol), max(1, self.admm_max_iter)
        try:
            first = super().solve(q=q, warm_start=warm_start)
        finally:
            self.tol, self.max_iter = tol, max_iter
        extra = {"admm_iterations": first.iterations, "admm_status": first.status, "admm_rho": self.rho,
                 "admm_time": first.solve_time}
        if first.status == "solved" and self.admm_tol <= tol:
            return RawSolution(first.x, first.y, first.s, "solved", "solved (phase one)", first.iterations,
                               time.perf_counter() - t0, self.setup_time, {**first.extra, **extra})
        if first.status in ("error", "time_limit") or first.x is None or first.y is None:
            return RawSolution(first.x, first.y, first.s, first.status, "phase one: " + first.raw_status,
                               first.iterations, time.perf_counter() - t0, self.setup_time,
                               {**first.extra, **extra})
        rho_admm = self.rho
        x = np.asarray(first.x, dtype=float).copy()
        y = np.asarray(first.y, dtype=float).copy()
        best = (np.inf, x, y, np.asarray(first.s, dtype=float))
        status, raw = "max_iter", "newton step cap"
        n_newton = n_cg = n_outer = n_sigma = n_stall = 0
        sigma_max = SIGMA_MAX_RATIO * self.rho
        outer_since = 0
        pres_prev = np.inf
        rel = (np.inf, np.inf, np.inf)
        val, st = self._phi(x, y, q, b)
        done = False
        for n_outer in range(1, self.max_outer + 1):
            # ---- inner: minimize phi(.; y) by semismooth Newton
            inner_target = max(0.2 * self.tol, min(0.1 * pres_prev, 1e-2))
            if self.inner_target is not None:
                inner_target = min(inner_target, float(self.inner_target))
            inner_best, inner_since = np.inf, 0
            while True:
                grad = st["Px"] + q + self.AT @ st["yp"]
                dres = self._subproblem_dres(grad, st, q)
                if dres <= inner_target:
                    break
                # stagnation (rounding at a large penalty): no 10% decrease in STALL_STEPS steps
                if dres < 0.9 * inner_best:
                    inner_best, inner_since = dres, 0
                else:
                    inner_since += 1
                    if inner_since >= STALL_STEPS:
                        n_stall += 1
                        break
                if n_newton >= self.max_newton:
                    done = True
                    break
                if self.time_limit is not None and time.perf_counter() - t0 > self.time_limit:
                    status, raw, done = "time_limit", "time_limit", True
                    break
                rtol = min(self.cg_rtol, max(1e-1 * dres, 1e-6))
                dvec, k = self._newton_dir(grad, st["active"], rtol)
                n_cg += k
                n_newton += 1
                slope = float(grad @ dvec)
                if slope >= 0:
                    dvec, slope = -self._solve_H(grad), -float(grad @ self._solve_H(grad))
                t = 1.0
                accepted = False
                for _ in range(30):
                    val_new, st_new = self._phi(x + t * dvec, y, q, b)
                    if val_new <= val + 1e-4 * t * slope + 1e-14 * abs(val):
                        accepted = True
                        break
                    t *= 0.5
                if not accepted:
                    status, raw, done = "inaccurate", "line search failed", True
                    break
                x, val, st = st_new["x"], val_new, st_new
                if self.newton_verbose:
                    print(f"  newton {n_newton:4d} dres {dres:.2e} cg {k:4d} step {t:.3g}")
            if done and status == "inaccurate":
                break
            # ---- multiplier update and certificate
            y_new = st["yp"]
            s = st["sm"] / self.rv
            Aty = self.AT @ y_new
            rel = relative_residuals(x, y_new, s, Ax=st["Ax"], Aty=Aty, Px=st["Px"], q=q, b=b)
            if max(rel) < 0.9 * best[0] or self.rho * self.sigma_factor <= sigma_max:
                outer_since = 0
            else:                   # the penalty is at its cap and the residuals do not fall
                outer_since += 1
            if max(rel) < best[0]:
                best = (max(rel), x.copy(), y_new.copy(), s.copy())
            if self.newton_verbose:
                print(f"outer {n_outer:3d} pres {rel[0]:.2e} dres {rel[1]:.2e} gap {rel[2]:.2e} "
                      f"sigma {self.rho:.2e} newton {n_newton} cg {n_cg}")
            if self.stop_check is not None and self.stop_check(x, y_new, s):
                best = (max(rel), x.copy(), y_new.copy(), s.copy())
                status, raw = "solved", "stopped by the caller's check"
                break
            if max(rel) <= self.tol:
                status, raw = "solved", "solved"
                break
            if done:
                break
            if outer_since >= STALL_STEPS:
                status, raw = "inaccurate", "stalled (no 10% progress in the last updates)"
                break
            y = y_new
            # the gap is x'r_d - r_p'y: a primal quantity once the subproblem is solved
            prim = max(rel[0], rel[2])
            if (prim > 0.25 * pres_prev or prim > 10 * rel[1]) and self.rho * self.sigma_factor <= sigma_max:
                self.rho *= self.sigma_factor
                self._factor()
                n_sigma += 1
            pres_prev = prim
            val, st = self._phi(x, y, q, b)
        else:
            raw = "augmented Lagrangian update cap"
        _, x_out, y_out, s_out = best
        sigma_last = self.rho
        if self.rho != rho_admm:           # the next solve's phase one starts from the ADMM's penalty
            self.rho = rho_admm
            self._factor()
        wall = time.perf_counter() - t0
        extra.update({"ssnal_outer": n_outer, "ssnal_newton": n_newton, "ssnal_cg": n_cg,
                      "ssnal_sigma": sigma_last, "ssnal_sigma_updates": n_sigma,
                      "ssnal_stalled_subproblems": n_stall,
                      "solver_res_pri": rel[0], "solver_res_dual": rel[1], "solver_gap": rel[2]})
        return RawSolution(x_out, y_out, s_out, status, raw, first.iterations + n_newton, wall,
                           self.setup_time, extra)


__all__ = ["SsnalBackend", "DEFAULT_MAX_NEWTON"]

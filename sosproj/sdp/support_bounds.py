r"""Certified two-sided bounds for linear conic programs over pseudo-moments (support functions).

For a linear conic problem :math:`p^\star = \min q^\top x` s.t. :math:`Ax + s = b`,
:math:`s\in\mathcal K` (:class:`~sosproj.sdp.conic.ConicProblem` with ``P = None``) whose
largest PSD block :math:`S_0` (the moment matrix) has a **known trace bound**
:math:`\operatorname{tr} S_0 \le \beta` on the feasible set, every answer of a solver
(any :math:`x`, any dual vector :math:`y`) is turned into certified numbers here,
recomputed by sosproj and independent of the solver's own report.

**Lower bound on** :math:`p^\star` (upper bound on the support value). Project the dual
parts of every cone except :math:`S_0` onto their dual cones, then absorb the dual
residual :math:`r = q + A^\top y` *exactly* into the dual matrix :math:`Z` of
:math:`S_0`: every variable :math:`x_j` appears in some rows of :math:`S_0` with a single
nonzero (every moment is an entry of the moment matrix), and changing those rows of
:math:`y` by :math:`-r_j a_{ij}/\sum_i a_{ij}^2` makes :math:`q + A^\top y' = 0`. Then for
every feasible :math:`x`

.. math::

    q^\top x = -y'^\top A x = -b^\top y' + y'^\top s
    \ge -b^\top y' + \lambda_{\min}(Z')\operatorname{tr} S_0
    \ge -b^\top y' - \beta \max(0, -\lambda_{\min}(Z')),

since the other blocks of :math:`y'` lie in their dual cones. :math:`\lambda_{\min}(Z')`
is bounded below by :func:`lambda_min_lower`: a dense ``eigvalsh`` for orders up to
:data:`DENSE_EIG_MAX` (minus the backward-error margin), else a Lanczos estimate that is
**verified by a Cholesky factorization** of :math:`Z' + \tau I`.

**Upper bound on** :math:`p^\star` (a feasible primal value). The equality rows with one
nonzero are solved exactly; then the point is mixed with a strictly feasible point
:math:`x_c` (for the unit ball a rotation-invariant measure with :math:`\|x\|^2` uniform on [0, 1],
:func:`ball_interior_moments`): by concavity of :math:`\lambda_{\min}`,
:math:`x_t = (1-t)\hat x + t x_c` is feasible as soon as
:math:`t \ge \max_j \nu_j / (\nu_j + \mu_j)` with :math:`\nu_j = \max(0,-\lambda_{\min}(D_jS_j(\hat x)D_j))`
and :math:`\mu_j = \lambda_{\min}(D_jS_j(x_c)D_j) > 0`, evaluated after the Jacobi scaling
:math:`D_j = \operatorname{diag}(S_j(x_c))^{-1/2}` (feasibility is invariant under it; it keeps
:math:`t` small when the moment matrix is badly scaled). Its value :math:`q^\top x_t` is
the value of a feasible point.

**Trace bound for the unit ball** :math:`\{1-\|x\|^2\ge 0\}` at degree :math:`2d`
(:func:`moment_trace_bound`): :math:`\operatorname{tr} M_d(y) = \sum_{j=0}^{d}\tilde{\mathbb E}
\sum_{|u|=j}x^{2u}`, and :math:`\sum_{|u|=j}x^{2u} \le \|x\|^{2j}` coefficientwise up to
terms :math:`x^{2u}` with nonnegative coefficients whose pseudo-expectations are diagonal
entries of :math:`M_d` (so :math:`\tilde{\mathbb E}\sum_{|u|=j}x^{2u}\le\tilde{\mathbb E}\|x\|^{2j}`);
:math:`\tilde{\mathbb E}\|x\|^{2j} \le \tilde{\mathbb E}\|x\|^{2j-2}` because
:math:`\tilde{\mathbb E}[(1-\|x\|^2)\|x\|^{2j-2}]` is a nonnegative combination of diagonal
entries of the localizing matrix (:math:`j\le d`). Hence :math:`\operatorname{tr} M_d(y) \le d + 1`
(3 at degree 4).

All quantities are computed in double precision; "certified" means up to floating-point
rounding of these few recomputations (the margins above cover the eigenvalue routines).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from sosproj.errors import InvalidInputError
from sosproj.sdp.cones import cholesky_margin, shifted_cholesky_succeeds
from sosproj.sdp.conic import ConicProblem, smat, svec_dim

#: dense ``eigvalsh`` (one tridiagonalization, bounded time: 0.6 s CPU at order 2,145) up to this
#: order; Lanczos + Cholesky verification beyond. (It was 1,500: ARPACK on the clustered spectrum of
#: a near-optimal dual matrix, many eigenvalues near zero, took minutes at order 2,145.)
DENSE_EIG_MAX = 6000


def lambda_min_lower(M: np.ndarray, *, target: float = 0.0) -> float:
    r"""A lower bound on :math:`\lambda_{\min}(M)` of a symmetric matrix (floating-point certified).

    Small orders: ``eigvalsh`` minus :math:`4 d\,\varepsilon\,\|M\|_F` (backward stability).
    Large orders: a Lanczos estimate :math:`\theta`, then the shift
    :math:`\tau = \max(-\theta, -\text{target}) + \text{margin}` is verified by a successful Cholesky
    factorization of :math:`M + \tau I` (doubling the margin until it succeeds); the answer is
    :math:`-\tau`. ``target`` is the eigenvalue below which the caller does not care (a positive
    target is capped at 0). A positive estimate (with ``target >= 0``) is verified the same way by
    a Cholesky factorization of :math:`M - sI`, :math:`s` just below :math:`\theta`, and
    :math:`s` minus the backward-error margin is returned: a strictly feasible point's blocks get
    a positive bound at every order.

    >>> round(lambda_min_lower(np.diag([2.0, -1.0, 3.0])), 9)
    -1.0
    """
    d = M.shape[0]
    if d == 0:
        return float("inf")
    fro = float(np.linalg.norm(M))
    margin = cholesky_margin(M)
    if d <= DENSE_EIG_MAX:
        return float(sla.eigvalsh(M, check_finite=False, subset_by_index=[0, 0])[0]) - margin
    from scipy.sparse.linalg import ArpackNoConvergence, eigsh

    try:
        theta = float(eigsh(M, k=1, which="SA", tol=1e-10, maxiter=5000, return_eigenvectors=False)[0])
    except ArpackNoConvergence as exc:
        theta = float(np.min(exc.eigenvalues)) if len(exc.eigenvalues) else -fro
    if theta > 0 and target >= 0:
        # a positive lower bound (a strictly feasible point): Cholesky of M - s I with s just below theta
        extra = max(margin, 1e-12 * fro, theta * 1e-6)
        while theta - extra > 0:
            if shifted_cholesky_succeeds(np.array(M, dtype=float), -(theta - extra)):
                return theta - extra - margin
            extra *= 4.0
    tau = max(-theta, -min(target, 0.0), 0.0)
    extra = max(margin, 1e-12 * fro, abs(tau) * 1e-6)
    for _ in range(60):
        if shifted_cholesky_succeeds(np.array(M, dtype=float), tau + extra):
            return -(tau + extra)
        extra *= 4.0
    return -fro - margin


#: orders below which :func:`_psd_block` keeps a gather map (one ``d x d`` index array per order, cached)
GATHER_MAX = 1000

_GATHER: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _gather_map(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The svec position of every entry of a ``d x d`` matrix (``"scs"`` order) and the svec scale vector."""
    if d not in _GATHER:
        jj, ii = np.triu_indices(d)                 # svec_indices(d, "scs"): i >= j, column-major
        pos = np.empty((d, d), dtype=np.intp)
        pos[ii, jj] = np.arange(ii.size)
        pos[jj, ii] = np.arange(ii.size)
        _GATHER[d] = (pos, np.where(ii == jj, 1.0, math.sqrt(2.0)))
    return _GATHER[d]


def _psd_block(v: np.ndarray, d: int) -> np.ndarray:
    """:func:`~sosproj.sdp.conic.smat` (bit for bit: the same division by the svec scale); below order
    :data:`GATHER_MAX` by one gather through a cached index map (1.65 ms -> about 0.3 ms at order 496,
    where a certificate's other work costs about 5 ms)."""
    if d >= GATHER_MAX or np.shape(v) != (svec_dim(d),):
        return smat(v, d)
    pos, scale = _gather_map(d)
    return np.take(np.asarray(v, dtype=float) / scale, pos)


class SupportCertifier:
    r"""Recompute certified bounds ``(lower, upper)`` on :math:`\min q^\top x` for one constraint structure.

    Parameters
    ----------
    problem : a linear :class:`ConicProblem` (``P = None``); only ``A``, ``b`` and cones are used.
    trace_bound : :math:`\beta \ge \operatorname{tr} S_0` over the feasible set (``S_0`` = largest PSD block).
    interior : optional strictly feasible point :math:`x_c` (enables the primal repair).

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> from sosproj.sdp import compile_support, solve
    >>> R = MomentRelaxation(unit_ball(2), 4)
    >>> prob = compile_support(R, 3, np.ones((2, 2, 2)))
    >>> res = solve(prob, solver="clarabel", tol=1e-9)
    >>> cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R)).bounds(prob.q, res.x, res.y_dual)
    >>> bool(cert["lower"] <= res.objective + 1e-7 and res.objective - 1e-7 <= cert["upper"])
    True
    """

    def __init__(self, problem: ConicProblem, trace_bound: float, interior: np.ndarray | None = None) -> None:
        if problem.P is not None:
            raise InvalidInputError("SupportCertifier needs a linear problem (P = None)")
        cones = problem.cones
        if not cones.psd:
            raise InvalidInputError("SupportCertifier needs a PSD block (the moment matrix)")
        if not (np.isfinite(trace_bound) and trace_bound > 0):
            raise InvalidInputError("trace_bound must be a finite positive bound on the moment matrix trace")
        self.problem = problem
        self.trace_bound = float(trace_bound)
        A = sp.csr_matrix(problem.A)
        self.A = A
        self.AT = sp.csr_matrix(A.T)
        self.b = problem.b
        start = cones.zero
        self.zero = slice(0, cones.zero)
        self.nonneg = slice(start, start + cones.nonneg)
        start += cones.nonneg
        if cones.soc:
            raise InvalidInputError("SupportCertifier handles zero, nonnegative and PSD cones only")
        self.psd: list[tuple[slice, int]] = []
        for d in cones.psd:
            self.psd.append((slice(start, start + svec_dim(d)), d))
            start += svec_dim(d)
        self.big = int(np.argmax(cones.psd))
        sl, d = self.psd[self.big]
        Ab = A[sl]
        one = np.flatnonzero(np.diff(Ab.indptr) == 1)
        cols = Ab.indices[Ab.indptr[one]]
        vals = Ab.data[Ab.indptr[one]]
        sq = np.zeros(problem.n)
        np.add.at(sq, cols, vals ** 2)
        if np.any(sq == 0):
            raise InvalidInputError("every variable must appear alone in some row of the largest PSD block "
                                    "(a moment matrix) for the dual repair; this relaxation has none")
        self.fix_rows = sl.start + one
        self.fix_cols = cols
        self.fix_coef = vals / sq[cols]
        # exact equality rows: y_0 = 1 style rows with one nonzero
        Az = A[self.zero]
        self.eq_single = bool(np.all(np.diff(Az.indptr) == 1)) if cones.zero else True
        self.interior = None
        self._lambda_min_seconds: float | None = None
        if interior is not None:
            self._set_interior(np.asarray(interior, dtype=float))

    def _set_interior(self, xc: np.ndarray) -> None:
        r"""Check that ``xc`` is strictly feasible: every PSD block positive definite, shown by one Cholesky
        factorization of :math:`S - 2mI` (:math:`m` the backward-error margin of :func:`lambda_min_lower`, so
        :math:`\lambda_{\min}(S) \ge m > 0`; a quarter of a dense ``eigvalsh``'s flops). Its ``lambda_min``
        bounds (the primal repair's) are computed on first use (:attr:`interior_mu_unscaled`); before issue 15's
        session 29 they were computed here, one order-N bound that ``solver="rankone_newton"`` (no primal
        repair) only used to time a final certificate (:attr:`lambda_min_seconds`)."""
        s = self.b - self.A @ xc
        if np.max(np.abs(s[self.zero]), initial=0.0) > 1e-9 or np.any(s[self.nonneg] <= 0):
            raise InvalidInputError("interior point violates the equalities or a scalar inequality")
        scales = []
        for sl, d in self.psd:
            S = _psd_block(s[sl], d)
            dg = np.diag(S)
            if np.any(dg <= 0):
                raise InvalidInputError("interior point has a PSD block with a non-positive diagonal")
            S = np.array(S, dtype=float, copy=True)
            if not shifted_cholesky_succeeds(S, -2.0 * cholesky_margin(S)):
                raise InvalidInputError("interior point is not strictly feasible (a PSD block is singular)")
            scales.append(1.0 / np.sqrt(dg))
        self.interior = xc
        self.interior_scales = scales
        self._interior_mu: list[float] | None = None
        self._interior_mu1: list[float] | None = None

    @property
    def interior_mu_unscaled(self) -> list[float]:
        """``lambda_min`` bounds of the interior point's blocks (positive: the setup's Cholesky check), computed
        on first use; the largest block's wall time is :attr:`lambda_min_seconds`."""
        if self._interior_mu1 is None:
            assert self.interior is not None
            s = self.b - self.A @ self.interior
            mus, big = [], max(d for _, d in self.psd)
            for sl, d in self.psd:
                t0 = time.perf_counter()
                mus.append(lambda_min_lower(_psd_block(s[sl], d)))
                if d == big:
                    self._lambda_min_seconds = time.perf_counter() - t0
            if not min(mus) > 0:
                raise InvalidInputError("interior point is not strictly feasible (a PSD block is singular)")
            self._interior_mu1 = mus
        return self._interior_mu1

    @property
    def lambda_min_seconds(self) -> float:
        """Wall seconds of one ``lambda_min`` bound of the largest block, measured on the interior point (0
        without one): what a final certificate costs, for callers that must finish within a time limit.
        Measured on first use (one order-N bound), not at setup: a solve without a time limit never pays it."""
        if self._lambda_min_seconds is None:
            if self.interior is None:
                return 0.0
            _ = self.interior_mu_unscaled
            assert self._lambda_min_seconds is not None
        return self._lambda_min_seconds

    @lambda_min_seconds.setter
    def lambda_min_seconds(self, value: float) -> None:
        self._lambda_min_seconds = float(value)

    @property
    def interior_mu(self) -> list[float]:
        r"""``lambda_min`` bounds of the interior point's Jacobi-scaled blocks :math:`D_jS_j(x_c)D_j`, computed on
        first use (only the primal repair needs them: one order-N bound less per certifier when the
        repair is not asked for, as in ``solver="rankone_newton"``). Positive whenever the unscaled bounds
        are (congruence); a non-positive one is refused as before."""
        if self._interior_mu is None:
            assert self.interior is not None
            s = self.b - self.A @ self.interior
            mus = []
            for (sl, d), D in zip(self.psd, self.interior_scales):
                S = _psd_block(s[sl], d)
                mu = lambda_min_lower(S * D[:, None] * D[None, :])
                if not mu > 0:
                    raise InvalidInputError("interior point is not strictly feasible (a PSD block is singular)")
                mus.append(mu)
            self._interior_mu = mus
        return self._interior_mu

    # ------------------------------------------------------------------ dual side
    def _repaired(self, q: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float, float, float]:
        """The repaired dual (module docs): ``(Z', b'y', leftover, |q + A'y|_inf)``."""
        yp = np.array(y, dtype=float, copy=True)
        yp[self.nonneg] = np.maximum(yp[self.nonneg], 0.0)
        for i, (sl, d) in enumerate(self.psd):
            if i == self.big:
                continue
            Zi = _psd_block(yp[sl], d)
            lam, V = np.linalg.eigh(Zi)
            Zp = (V * np.maximum(lam, 0.0)) @ V.T
            from sosproj.sdp.conic import svec

            yp[sl] = svec(Zp)
        r = q + self.AT @ yp
        dres = float(np.linalg.norm(r, np.inf))
        np.subtract.at(yp, self.fix_rows, r[self.fix_cols] * self.fix_coef)
        r2 = q + self.AT @ yp
        sl, d = self.psd[self.big]
        Z = _psd_block(yp[sl], d)
        # the rounding left in q + A'y' (tiny) is charged with the largest |x_j| of the feasible set:
        # |x_j| <= trace bound for moments of the unit-ball type (|y_a| <= max diag <= trace)
        leftover = float(np.sum(np.abs(r2))) * self.trace_bound
        return Z, float(self.b @ yp), leftover, dres

    def lower(self, q: np.ndarray, y: np.ndarray) -> dict[str, float]:
        """Certified lower bound on ``min q'x`` from any dual vector ``y`` (see the module docs)."""
        Z, by, leftover, dres = self._repaired(q, y)
        lam = lambda_min_lower(Z)
        low = -by - self.trace_bound * max(0.0, -lam) - leftover
        return {"lower": low, "dual_value": -by, "lambda_min_dual": lam, "dual_residual_inf": dres,
                "dual_leftover": leftover}

    def verifies(self, q: np.ndarray, y: np.ndarray, floor: float) -> bool:
        r"""Whether ``y`` certifies ``min q'x >= floor``, by one Cholesky factorization instead of
        an eigenvalue bound (about a quarter of :meth:`lower`'s cost at order 2,145).

        With the repaired :math:`Z'` the bound of :meth:`lower` is at least ``floor`` as soon as
        :math:`\lambda_{\min}(Z') \ge -\tau`, :math:`\tau = (-b^\top y' - \text{leftover} - \text{floor})/\beta`;
        that is proven by a successful Cholesky factorization of :math:`Z' + (\tau - m)I` with
        :math:`m = 4d\varepsilon\|Z'\|_F` the backward-error margin of :func:`lambda_min_lower`.
        ``False`` means "not shown", not "false".
        """
        Z, by, leftover, _ = self._repaired(q, y)
        tau = (-by - leftover - float(floor)) / self.trace_bound
        shift = tau - cholesky_margin(Z)
        if not np.isfinite(shift) or tau < 0:
            return False
        return shifted_cholesky_succeeds(Z, shift)

    # ---------------------------------------------------------------- primal side
    def upper(self, q: np.ndarray, x: np.ndarray) -> dict[str, float]:
        """Value of a feasible point made from ``x`` (equalities solved, mixed with the interior point)."""
        point = self.feasible_point(x)
        if point is None:
            return {"upper": float("nan"), "mix": float("nan")}
        xt, t = point
        return {"upper": float(q @ xt), "mix": t}

    def feasible_point(self, x: np.ndarray) -> tuple[np.ndarray, float] | None:
        r"""The repaired point :math:`x_t = (1-t)\hat x + t x_c` and its mixing weight ``t`` (module docs);
        ``None`` without an interior point or with equality rows of several nonzeros."""
        if self.interior is None or not self.eq_single:
            return None
        xh = np.array(x, dtype=float, copy=True)
        Az = self.A[self.zero]
        if Az.shape[0]:
            rows = np.arange(Az.shape[0])
            cols = Az.indices[Az.indptr[rows]]
            xh[cols] = self.b[self.zero] / Az.data[Az.indptr[rows]]
        s = self.b - self.A @ xh
        t = 0.0
        nn = s[self.nonneg]
        if nn.size:
            sc = (self.b - self.A @ self.interior)[self.nonneg]
            neg = np.maximum(-nn, 0.0)
            t = max(t, float(np.max(neg / (neg + sc))))
        for (sl, d), D, mu, mu1 in zip(self.psd, self.interior_scales, self.interior_mu, self.interior_mu_unscaled):
            S = _psd_block(s[sl], d)
            lam1 = lambda_min_lower(S, target=0.0)
            if lam1 >= 0:
                continue
            # two valid scalings (Jacobi and none); the smaller mixing weight wins
            lam = lambda_min_lower(S * D[:, None] * D[None, :])
            nu, nu1 = max(0.0, -lam), -lam1
            t = max(t, min(nu / (nu + mu), nu1 / (nu1 + mu1)))
        t = min(1.0, t * (1.0 + 1e-12) + (1e-300 if t > 0 else 0.0))
        return ((1.0 - t) * xh + t * self.interior if t > 0 else xh), t

    def bounds(self, q: np.ndarray, x: np.ndarray | None, y: np.ndarray | None, *,
               point_value: float | None = None, repair: bool = True,
               low: dict[str, float] | None = None) -> dict[str, float]:
        """Both sides and the certified gap ``upper - lower`` (``nan`` where a side is missing).

        ``point_value``: the objective ``q . x'`` of some other exactly feasible ``x'`` (a rounded
        point); the upper side is the smaller of it and the repaired ``x`` (skipped when
        ``repair=False``). ``low``: the result of :meth:`lower` on this very ``(q, y)`` when the caller has
        computed it already (one ``lambda_min`` bound less); ``None``: computed here.
        """
        out: dict[str, float] = {"lower": float("nan"), "upper": float("nan"), "mix": float("nan")}
        if y is not None and np.all(np.isfinite(y)):
            out.update(self.lower(q, y) if low is None else low)
        if repair and x is not None and np.all(np.isfinite(x)):
            out.update(self.upper(q, x))
        out["repaired"] = out["upper"]
        if point_value is not None and np.isfinite(point_value):
            out["point"] = float(point_value)
            out["upper"] = float(point_value) if not np.isfinite(out["upper"]) else min(out["upper"],
                                                                                          float(point_value))
        out["gap"] = out["upper"] - out["lower"]
        out["relative_gap"] = out["gap"] / max(1.0, abs(out["lower"]), abs(out["upper"]))
        return out


# ------------------------------------------------------------------ unit ball data


def _is_unit_ball(R: Any) -> bool:
    system = R.system
    if system.equalities or len(system.inequalities) != 1:
        return False
    if getattr(system.reduction, "kind", None) != "free":
        return False
    g = system.inequalities[0]
    n = system.n_vars
    exps = np.asarray(g.exps)
    coeffs = np.asarray(g.float_coeffs(), dtype=float)
    expected = {tuple([0] * n): 1.0}
    for i in range(n):
        e = [0] * n
        e[i] = 2
        expected[tuple(e)] = -1.0
    got = {tuple(int(v) for v in row): float(c) for row, c in zip(exps, coeffs) if c != 0}
    return got == expected


def moment_trace_bound(R: Any) -> float:
    r"""Proven bound :math:`\operatorname{tr} M_d(y) \le d + 1` for the unit ball at degree :math:`2d`.

    Raises :class:`~sosproj.errors.InvalidInputError` for other systems (no proven bound here).

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> moment_trace_bound(MomentRelaxation(unit_ball(5), 4))
    3.0
    """
    if not _is_unit_ball(R):
        raise InvalidInputError("a proven moment-matrix trace bound is implemented for the unit ball "
                                "{1 - ||x||^2 >= 0} only; use solver='admm' or 'scs' for this relaxation")
    return float(R.degree // 2 + 1)


def ball_interior_moments(R: Any) -> np.ndarray:
    r"""Moments :math:`\mathbb E[x^\alpha]` of the uniform measure on the unit ball (strictly feasible).

    :math:`\mathbb E[x^{2\beta}] = \frac{n}{n+2m}\prod_i(2\beta_i-1)!!\,/\prod_{j<m}(n+2j)`,
    :math:`m = |\beta|`; odd moments vanish.

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> y = ball_interior_moments(MomentRelaxation(unit_ball(1), 2))
    >>> [round(float(v), 6) for v in y]   # 1, E x, E x^2 on [-1, 1]
    [1.0, 0.0, 0.5]
    """
    if not _is_unit_ball(R):
        raise InvalidInputError("ball_interior_moments needs a unit-ball relaxation")
    E = np.asarray(R.monomials, dtype=np.int64)
    n = E.shape[1]
    even = np.all(E % 2 == 0, axis=1)
    out = np.zeros(E.shape[0])
    half = E[even] // 2
    m = half.sum(axis=1)
    # log of prod (2b-1)!! = sum log Gamma(b + 1/2) - log Gamma(1/2) + b log 2
    lg = np.vectorize(math.lgamma)
    dfact = np.sum(lg(half + 0.5) - math.lgamma(0.5) + half * math.log(2.0), axis=1)
    denom = np.array([sum(math.log(n + 2 * j) for j in range(int(mm))) for mm in m])
    out[even] = np.exp(dfact - denom) / (m + 1.0)
    return out


__all__ = ["SupportCertifier", "lambda_min_lower", "moment_trace_bound", "ball_interior_moments",
           "DENSE_EIG_MAX"]

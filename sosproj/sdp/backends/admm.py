r"""Structure-exploiting ADMM for conic least squares over pseudo-moments (``solver="admm"``).

Solves the canonical problem of :mod:`sosproj.sdp.conic`,
:math:`\min \tfrac12 x^\top P x + q^\top x` s.t. :math:`Ax + s = b,\ s\in\mathcal K`,
by the ADMM splitting of OSQP/SCS *without* the homogeneous embedding, written in
the Douglas-Rachford variable :math:`w`:

.. math::

    s = \Pi_{\mathcal K}(w),\quad u = s - w,\quad
    x = H^{-1}\bigl(-q - A^\top \rho\,(s - b + u)\bigr),\quad
    w^{+} = b - \alpha A x - (1-\alpha)(b - s) - u,

with :math:`H = P + A^\top \rho A`, one penalty :math:`\rho` per cone (the zero
cone gets ``eq_scale`` times more) and over-relaxation :math:`\alpha`. By Moreau's
decomposition :math:`s\in\mathcal K`, :math:`y = \rho u\in\mathcal K^*` and
:math:`s^\top y = 0` *at every iteration*, so only the residuals
:math:`Ax + s - b`, :math:`Px + q + A^\top y` and the gap measure convergence.
Two certificates share :math:`(s, y)`: with the :math:`x` computed from them, and
with the previous :math:`x` (the classical ADMM pair, whose primal and dual
residuals also drive the penalty balancing); the better one is reported.

**Why it is fast on moment relaxations.** Every entry of a moment matrix is one
moment (the unit ball, the Boolean cube after reduction): the rows of ``A`` with
one nonzero contribute a *diagonal* to :math:`A^\top\rho A`, and ``P`` (orbit
weights of the readout) is diagonal. The few rows with several nonzeros (the
localizing matrix of :math:`1-\|x\|^2`, order :math:`n+1`) form a matrix ``C``
with :math:`c = \binom{n+2}{2}` rows, so

.. math::

    H^{-1} = D^{-1} - D^{-1}C^\top(\rho_C^{-1} + C D^{-1} C^\top)^{-1} C D^{-1}

(Woodbury) costs one dense ``c x c`` Cholesky per :math:`\rho` and two sparse
products per iteration. The iteration cost is then one eigendecomposition per
PSD block. Anderson acceleration (type II, memory 10, safeguarded as in SCS 3)
is applied to the map :math:`w\mapsto w^+`, and :math:`\rho` is rebalanced every
50 iterations when the classical pair's relative residuals differ by more than
``adapt_ratio**2``.

Problems without this structure (a non-diagonal ``P``, a variable that appears
in no single-nonzero row, or too many coupled rows) raise
:class:`~sosproj.errors.SolverNotAvailableError`, so a fallback chain such as
``solver=("admm", "scs")`` moves on to SCS.

>>> import numpy as np, scipy.sparse as sp
>>> from sosproj.sdp.conic import ConicProblem, Cones
>>> prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([-6.0]), sp.csc_matrix([[-1.0]]),
...                     np.array([-1.0]), Cones(nonneg=1))       # min (x-3)^2 s.t. x >= 1
>>> sol = AdmmBackend(prob, tol=1e-9).solve()
>>> sol.status, round(float(sol.x[0]), 6)
('solved', 3.0)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from sosproj.errors import InvalidParameterError, SolverNotAvailableError
from sosproj.sdp.backends.base import RawSolution, SolverBackend
from sosproj.sdp.backends.scs import ScsBackend
from sosproj.sdp.cones import Cones, PSDProjector, project_soc, svec_dim
from sosproj.sdp.conic import ConicProblem, relative_residuals
from sosproj.sdp.gpu import TorchPSDProjector, resolve_device

#: iteration cap when the caller gives none (``solver="auto"`` then hands over to SCS)
DEFAULT_MAX_ITER = 20_000

#: largest number of coupled rows (rows of ``A`` with several nonzeros) handled by Woodbury
MAX_COUPLED_ROWS = 4000


class _Anderson:
    """Type-II Anderson acceleration with a ring buffer and an incrementally updated Gram matrix.

    Given iterates ``z_k`` and map values ``F(z_k)``, with ``g_k = F(z_k) - z_k`` it returns
    ``F(z_k) - dF @ gamma`` where ``gamma`` minimizes ``||g_k - dG gamma||`` (Tikhonov
    regularized) over the last ``memory`` differences ``dG``, ``dF``.
    """

    def __init__(self, memory: int, dim: int, reg: float = 1e-10) -> None:
        self.memory = memory
        self.reg = reg
        self.dG = np.zeros((memory, dim))
        self.dF = np.zeros((memory, dim))
        self.gram = np.zeros((memory, memory))
        self.reset()

    def reset(self) -> None:
        self.count = 0
        self.head = 0
        self.prev_F: np.ndarray | None = None
        self.prev_g: np.ndarray | None = None

    def step(self, z: np.ndarray, Fz: np.ndarray) -> np.ndarray:
        g = Fz - z
        if self.prev_g is not None:
            i = self.head
            np.subtract(g, self.prev_g, out=self.dG[i])
            np.subtract(Fz, self.prev_F, out=self.dF[i])
            row = self.dG @ self.dG[i]
            self.gram[i, :] = row
            self.gram[:, i] = row
            self.head = (i + 1) % self.memory
            self.count = min(self.count + 1, self.memory)
        self.prev_F, self.prev_g = Fz, g
        k = self.count
        if k == 0:
            return Fz
        # the filled rows are always 0..k-1 (the ring starts at 0 and k = memory once it wraps):
        # slices are views, where fancy indexing copied two (k x m) arrays per step
        rows = slice(0, min(k, self.memory))
        G = self.gram[rows, rows].copy()
        G[np.diag_indices_from(G)] += self.reg * (np.trace(G) + 1e-300)
        try:
            gamma = np.linalg.solve(G, self.dG[rows] @ g)
        except np.linalg.LinAlgError:
            self.reset()
            return Fz
        if not np.all(np.isfinite(gamma)):
            self.reset()
            return Fz
        return Fz - gamma @ self.dF[rows]


def _coupled_rows(cones: Cones) -> int:
    """Rows taken as coupled by the memory estimate: those of every block but the largest."""
    dmax = max(cones.psd, default=0)
    return sum(svec_dim(d) for d in cones.psd if d < dmax) + cones.nonneg + sum(cones.soc)


#: ``solver="auto"`` on a least-squares problem (nonzero ``P``: the projections) whose largest PSD
#: block has at least this order runs ``"lowrank"`` (this ADMM with the smaller-side spectral
#: projection and the projection penalty, :mod:`sosproj.sdp.backends.lowrank`) instead of
#: ``"admm"``; measured in the same runs in docs/bench_sdp.md ("Projections with the smaller side
#: of the spectrum"). Linear costs (supports) are routed by :mod:`sosproj.sdp.lowrank_support`.
AUTO_PROJECTION_LOWRANK_MIN_ORDER = 400


def auto_route(cones: Cones, nnz_P: int) -> str:
    """The structured backend ``solver="auto"`` builds first, from sizes alone: ``"lowrank"`` for a
    least-squares cost (``nnz_P > 0``) with a PSD block of order at least
    :data:`AUTO_PROJECTION_LOWRANK_MIN_ORDER`, else ``"admm"``.

    >>> auto_route(Cones(zero=1, psd=(496, 31)), 5456), auto_route(Cones(zero=1, psd=(496, 31)), 0)
    ('lowrank', 'admm')
    """
    if nnz_P > 0 and max(cones.psd, default=0) >= AUTO_PROJECTION_LOWRANK_MIN_ORDER:
        return "lowrank"
    return "admm"


#: ``solver="auto"`` on a projection whose largest PSD block has at least this order also asks ``lowrank`` for
#: ``device="auto"``: its eigendecompositions run on a GPU when PyTorch sees one (:mod:`sosproj.sdp.gpu`), and on
#: the host exactly as before otherwise. Measured on the lent H200 in one run (docs/bench_sdp.md, "`lowrank` and
#: `rankone_newton` with `device=`"): ``dp`` n = 50 (order 1,326) 4.2x faster than the host ``lowrank`` and 6.2x
#: than the host ADMM; at order 496 (`boundary` n = 30) the device ADMM was slower than the host ``lowrank`` (0.80x:
#: transfers and host-side work dominate), so orders below 1,000 stay on the host (order 861 was not measured).
AUTO_PROJECTION_DEVICE_MIN_ORDER = 1000


def auto_options(cones: Cones, nnz_P: int) -> dict[str, Any]:
    """Backend options ``solver="auto"`` adds to :func:`auto_route`'s choice (an explicit option wins):
    ``{"device": "auto"}`` for a projection with a PSD block of order at least
    :data:`AUTO_PROJECTION_DEVICE_MIN_ORDER`, else none.

    >>> auto_options(Cones(zero=1, psd=(1326, 51)), 22100), auto_options(Cones(zero=1, psd=(496, 31)), 4960)
    ({'device': 'auto'}, {})
    """
    if auto_route(cones, nnz_P) == "lowrank" and max(cones.psd, default=0) >= AUTO_PROJECTION_DEVICE_MIN_ORDER:
        return {"device": "auto"}
    return {}


def auto_memory(n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
    """Memory estimate of ``solver="auto"``: the larger of ADMM's and SCS's (it may fall back to
    SCS), or SCS's alone when the ADMM would refuse the coupled rows (beyond :data:`MAX_COUPLED_ROWS`);
    :func:`sosproj.sdp.backends.estimate_memory` adds the ``lowrank`` variant where :func:`auto_route`
    picks it.

    >>> from sosproj.sdp.cones import Cones
    >>> cones = Cones(zero=1, psd=(4,))
    >>> auto_memory(10, cones, 20, 0) >= AdmmBackend.estimate_memory(10, cones, 20, 0)
    True
    """
    scs_bytes = ScsBackend.estimate_memory(n, cones, nnz_A, nnz_P)
    if _coupled_rows(cones) > MAX_COUPLED_ROWS:
        return int(scs_bytes)
    return int(max(AdmmBackend.estimate_memory(n, cones, nnz_A, nnz_P), scs_bytes))


class AdmmBackend(SolverBackend):
    """A compiled ADMM workspace for one :class:`ConicProblem` (only ``q`` may change).

    Settings: ``rho`` (initial penalty, default from the data scale), ``alpha``
    (over-relaxation, 1.0: none), ``eq_scale`` (penalty multiplier of the zero cone,
    1e3), ``anderson`` (memory, 0 disables), ``adapt_every`` (iterations between
    penalty updates), ``adapt_ratio``, ``check_every``, ``safeguard`` (Anderson acceptance
    factor), ``device`` (``None``: NumPy eigendecompositions on the host; ``"cuda"``: on a GPU through
    PyTorch, :mod:`sosproj.sdp.gpu`; ``"auto"``: the GPU when one is present), ``verbose``.

    >>> import numpy as np, scipy.sparse as sp
    >>> from sosproj.sdp.conic import ConicProblem, Cones
    >>> # nearest point of the PSD cone (order 2) to diag(1, -1): diag(1, 0)
    >>> prob = ConicProblem(2 * sp.identity(3, format="csc"), np.array([-2.0, 0.0, 2.0]),
    ...                     -sp.identity(3, format="csc"), np.zeros(3), Cones(psd=(2,)), offset=2.0)
    >>> sol = AdmmBackend(prob, tol=1e-10).solve()
    >>> sol.status, np.round(sol.x, 8).tolist()
    ('solved', [1.0, 0.0, 0.0])
    """

    #: the coupled rows this workspace accepts (:data:`MAX_COUPLED_ROWS`; a subclass whose caller budgets the
    #: dense Woodbury matrix itself may raise it)
    max_coupled_rows = MAX_COUPLED_ROWS
    name = "admm"
    warm_start = True
    options = {"rho": None, "alpha": 1.0, "eq_scale": 1e3, "anderson": 10, "adapt_every": None,
               "adapt_ratio": 5.0, "stall_ratio": None, "gap_weight": None, "check_every": 5,
               "safeguard": 1.0, "device": None, "verbose": False}

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """``A`` and ``A'`` (CSR), the Anderson history (2 x 10 vectors of length m), the iterates,
        one dense eigendecomposition per block and the dense Woodbury matrix of the coupled rows
        (taken as the rows of every block but the largest; beyond :data:`MAX_COUPLED_ROWS` the
        ADMM refuses the problem before allocating that matrix)."""
        m = cones.dim
        dmax = max(cones.psd, default=0)
        return int(2 * 12 * (nnz_A + nnz_P) + 8 * (20 * m + 12 * (n + m)) + 8 * 4 * dmax * dmax
                   + 8 * min(_coupled_rows(cones), MAX_COUPLED_ROWS) ** 2)

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **options)
        o = self.options
        rho, alpha, eq_scale, anderson = o["rho"], o["alpha"], o["eq_scale"], o["anderson"]
        adapt_every, adapt_ratio, stall_ratio, gap_weight = (o["adapt_every"], o["adapt_ratio"],
                                                             o["stall_ratio"], o["gap_weight"])
        check_every, safeguard, verbose = o["check_every"], o["safeguard"], o["verbose"]
        if not 0.0 < alpha < 2.0:
            raise InvalidParameterError("alpha (over-relaxation) must lie in (0, 2)")
        self.max_iter = int(max_iter) if max_iter else DEFAULT_MAX_ITER
        self.alpha = float(alpha)
        self.eq_scale = float(eq_scale)
        self.anderson = int(anderson)
        self.adapt_ratio = float(adapt_ratio)
        self.check_every = max(1, int(check_every))
        self.safeguard = float(safeguard)
        self.verbose = bool(verbose)
        cones = problem.cones
        n, m = problem.n, problem.m
        A = sp.csr_matrix(problem.A)
        P = problem.P
        if P is not None:
            P = sp.csr_matrix(P)
            if (P - sp.diags(P.diagonal())).count_nonzero():
                raise SolverNotAvailableError("the ADMM backend needs a diagonal P; use solver='scs'")
            self.p_diag = np.asarray(P.diagonal(), dtype=float)
        else:
            self.p_diag = np.zeros(n)
        # Penalty policy, measured on unit-ball / Boolean-cube projections and supports
        # (docs/bench_sdp.md). Least squares: the gap lags (|y'r_p| sums over every PSD entry), so it
        # joins the primal side of the balance, and a stalled run (worst residual not halved since
        # the last check) is rebalanced at a lower threshold. Linear costs (support functions):
        # the residuals alone, rarely (both rules made supports slower or fail).
        quadratic = bool(np.any(self.p_diag))
        self.gap_weight = float(gap_weight) if gap_weight is not None else (1.0 if quadratic else 0.0)
        self.adapt_every = int(adapt_every) if adapt_every is not None else (25 if quadratic else 50)
        self.stall_ratio = float(stall_ratio) if stall_ratio is not None else (2.0 if quadratic else 0.0)
        self.A = A
        self.AT = sp.csr_matrix(A.T)
        self.slices = list(cones.blocks())
        device = resolve_device(o["device"])
        self.device = device
        if device is None:
            self.psd_proj = {d: PSDProjector(d) for d in set(cones.psd)}
        else:                               # the eigendecompositions on a PyTorch device (sosproj.sdp.gpu)
            self.psd_proj = {d: TorchPSDProjector(d, device) for d in set(cones.psd)}
        self.row_scale = np.ones(m)
        for kind, sl, _ in self.slices:
            if kind == "zero":
                self.row_scale[sl] = self.eq_scale
        row_nnz = np.diff(A.indptr)
        self.coupled = np.flatnonzero(row_nnz > 1)
        if self.coupled.size > self.max_coupled_rows:
            raise SolverNotAvailableError(
                f"the ADMM backend couples {self.coupled.size} rows (limit {self.max_coupled_rows}); "
                "use solver='scs'")
        single = np.flatnonzero(row_nnz == 1)
        As = A[single]
        cols = As.indices
        self.single_rows = single
        self.single_cols = cols
        self.single_sq = As.data ** 2
        covered = np.zeros(n, dtype=bool)
        covered[cols] = True
        covered |= self.p_diag > 0
        if not covered.all():
            raise SolverNotAvailableError(
                "the ADMM backend needs every variable in the objective or in a one-entry constraint row; "
                "use solver='scs'")
        self.C = A[self.coupled]
        self.CT = sp.csr_matrix(self.C.T)
        if rho is None:
            pd = self.p_diag[self.p_diag > 0]
            rho = float(np.median(pd)) if pd.size else 1.0
        self.rho = float(rho)
        self._factor()
        self._q = problem.q
        self._built()

    # ---------------------------------------------------------------- linear algebra
    def _factor(self) -> None:
        rv = self.rho * self.row_scale
        self.rv = rv
        self.Dinv, self.K_chol = self.normal_factor(rv)

    def normal_factor(self, rv: np.ndarray) -> tuple[np.ndarray, Any]:
        r"""Factor :math:`H = P + A^\top \operatorname{diag}(rv) A` (diagonal + Woodbury, module docs).

        Returns ``(D^{-1}, Cholesky of rv_C^{-1} + C D^{-1} C')`` for :meth:`normal_solve`; the
        semismooth Newton backend factors it with its own row weights (its CG preconditioner).
        """
        D = self.p_diag.copy()
        np.add.at(D, self.single_cols, rv[self.single_rows] * self.single_sq)
        Dinv = 1.0 / D
        K_chol = None
        if self.coupled.size:
            CD = self.C.multiply(Dinv[None, :]).tocsr()
            K = (CD @ self.CT).toarray()
            K[np.diag_indices_from(K)] += 1.0 / rv[self.coupled]
            K_chol = sla.cho_factor(K, lower=True, check_finite=False)
        return Dinv, K_chol

    def normal_solve(self, r: np.ndarray, factor: tuple[np.ndarray, Any]) -> np.ndarray:
        """:math:`H^{-1} r` from a :meth:`normal_factor` result."""
        Dinv, K_chol = factor
        x = Dinv * r
        if K_chol is not None:
            t = sla.cho_solve(K_chol, self.C @ x, check_finite=False)
            x -= Dinv * (self.CT @ t)
        return x

    def _solve_H(self, r: np.ndarray) -> np.ndarray:
        return self.normal_solve(r, (self.Dinv, self.K_chol))

    def _project(self, w: np.ndarray) -> np.ndarray:
        out = np.empty_like(w)
        for kind, sl, d in self.slices:
            v = w[sl]
            if kind == "zero":
                out[sl] = 0.0
            elif kind == "nonneg":
                out[sl] = np.maximum(v, 0.0)
            elif kind == "soc":
                out[sl] = project_soc(v)
            else:
                out[sl] = self.psd_proj[d](v)
        return out

    # ---------------------------------------------------------------- iteration
    def _map(self, w: np.ndarray, q: np.ndarray, b: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One ADMM step in the Douglas-Rachford variable ``w = s - u``.

        ``s = Pi_K(w)`` and ``u = s - w`` (so ``rho u`` is in the dual cone, complementary
        to ``s``); then the ``x`` update and the next ``w``.
        """
        s = self._project(w)
        u = s - w
        x = self._solve_H(-q - self.AT @ (self.rv * (s - b + u)))
        Ax = self.A @ x
        w_next = b - (self.alpha * Ax + (1.0 - self.alpha) * (b - s)) - u
        return w_next, x, Ax, s, u

    def _residuals(self, x: np.ndarray, Ax: np.ndarray, s: np.ndarray, y: np.ndarray, Aty: np.ndarray,
                   q: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
        """Relative primal, dual residuals and gap of ``(x, s, y)`` (SCS's definitions, as
        :meth:`ConicProblem.residuals`); ``Aty = A'y`` is passed in, shared by both certificates."""
        return relative_residuals(x, y, s, Ax=Ax, Aty=Aty, Px=self.p_diag * x, q=q, b=b)

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Run ADMM (after replacing the cost by ``q``), optionally from ``(x, y, s)``."""
        if q is not None:
            self._q = np.asarray(q, dtype=float)
        q = self._q
        b = self.problem.b
        m = self.problem.m
        t0 = time.perf_counter()
        if warm_start is not None:
            _, y0, s0 = (np.asarray(v, dtype=float) for v in warm_start)
            w = s0 - y0 / self.rv
        else:
            w = np.zeros(m)
        aa = _Anderson(self.anderson, m) if self.anderson > 0 else None
        status, raw = "max_iter", "max_iter"
        x_out = np.zeros(self.problem.n)
        s_out, y_out = np.zeros(m), np.zeros(m)
        x_prev: np.ndarray | None = None
        Ax_prev: np.ndarray | None = None
        best_g = np.inf
        fallback: np.ndarray | None = None
        it = 0
        rel = (np.inf, np.inf, np.inf)
        n_rho = n_rejected = 0
        last_worst: float | None = None
        for it in range(1, self.max_iter + 1):
            try:
                w_next, x, Ax, s, u = self._map(w, q, b)
            except np.linalg.LinAlgError:
                status, raw = "error", "eigendecomposition failed (non-finite iterate)"
                break
            y = u * self.rv
            g_norm = float(np.linalg.norm(w_next - w))
            if not np.isfinite(g_norm):
                x_out, s_out, y_out = x, s, y
                status, raw = "error", "non-finite iterate (the problem may be infeasible or unbounded)"
                break
            x_out, s_out, y_out = x, s, y
            if it % self.check_every == 0 or it == 1:
                # two certificates share (s, y) (in the cones, complementary): with the x computed
                # from them (pair "a"), and with the previous x (pair "b", the classical ADMM pair
                # whose primal and dual residuals measure the penalty's balance)
                Aty = self.AT @ y
                rel = self._residuals(x, Ax, s, y, Aty, q, b)
                pb = None
                if x_prev is not None and Ax_prev is not None:
                    pb = self._residuals(x_prev, Ax_prev, s, y, Aty, q, b)
                    if max(pb) < max(rel):
                        rel, x_out = pb, x_prev
                if self.verbose:
                    print(f"{it:6d} pres {rel[0]:.2e} dres {rel[1]:.2e} gap {rel[2]:.2e} rho {self.rho:.2e} "
                          f"|g| {g_norm:.2e}" + (f" (b: {pb[0]:.1e} {pb[1]:.1e})" if pb is not None else ""))
                if max(rel) <= self.tol:
                    status, raw = "solved", "solved"
                    break
                # penalty balancing (OSQP's rule) on the classical pair's relative residuals
                if (self.adapt_every and it % self.adapt_every == 0 and pb is not None
                        and pb[0] > 0 and pb[1] > 0):
                    ratio = float(np.sqrt(max(pb[0], self.gap_weight * pb[2]) / pb[1]))
                    worst = max(rel)
                    stalled = last_worst is not None and worst > 0.5 * last_worst
                    last_worst = worst
                    lim = self.stall_ratio if (stalled and self.stall_ratio > 1.0) else self.adapt_ratio
                    if ratio > lim or ratio < 1.0 / lim:
                        new_rho = float(np.clip(self.rho * ratio, 1e-6, 1e6))
                        w = s - u * (self.rho / new_rho)
                        self.rho = new_rho
                        self._factor()
                        n_rho += 1
                        if aa is not None:
                            aa.reset()
                        best_g, fallback = np.inf, None
                        x_prev, Ax_prev = None, None
                        continue
            x_prev, Ax_prev = x, Ax
            if self.time_limit is not None and time.perf_counter() - t0 > self.time_limit:
                status, raw = "time_limit", "time_limit"
                break
            if aa is None:
                w = w_next
                continue
            # safeguard: an accelerated point whose fixed-point residual grew is dropped for the
            # plain step from the last accepted point
            if fallback is not None and g_norm > self.safeguard * best_g:
                n_rejected += 1
                aa.reset()
                w, fallback, best_g = fallback, None, np.inf
                continue
            best_g = g_norm
            fallback = w_next
            w = aa.step(w, w_next)
        wall = time.perf_counter() - t0
        return RawSolution(x_out, y_out, s_out, status, raw, it, wall, self.setup_time,
                           {"admm_rho": self.rho, "admm_rho_updates": n_rho, "admm_aa_rejected": n_rejected,
                            "solver_res_pri": rel[0], "solver_res_dual": rel[1], "solver_gap": rel[2]})


__all__ = ["AdmmBackend", "MAX_COUPLED_ROWS", "DEFAULT_MAX_ITER", "AUTO_PROJECTION_LOWRANK_MIN_ORDER",
           "AUTO_PROJECTION_DEVICE_MIN_ORDER", "auto_memory", "auto_options", "auto_route"]

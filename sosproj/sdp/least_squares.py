r"""Generalized least squares over pseudo-moments, compiled once and reused.

:class:`LeastSquaresProjector` solves

.. math::

    \min_{y \text{ feasible for } R}\ \sum_i w_i\,\big((By)_i - c_i\big)^2

for a fixed relaxation ``R``, sparse measurement map ``B`` and weights ``w``,
and many right-hand sides ``c`` (noise draws): the constraint data and the
solver workspace (SCS's KKT factorization) are built once; each
:meth:`~LeastSquaresProjector.solve` only changes the linear cost
:math:`q = -2B^\top W c` and warm-starts from the previous solution. The
tensor projection of :class:`~sosproj.sets.pseudo_moment.PseudoMomentSet` is
the special case ``B`` = readout matrix, ``w`` = orbit sizes.

It also computes a **certified lower bound** on the optimal value from the
dual solution (:meth:`~sosproj.sdp.conic.ConicProblem.lower_bound`), using a
bound on :math:`\|y\|_2` over the feasible set (:func:`feasible_norm_bound`).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import InvalidInputError, ProjectionError, ResourceLimitError, SolverNotAvailableError
from sosproj.sdp.compile import (
    _weights,
    check_relaxation_memory,
    compile_constraints,
    compile_linear,
    least_squares_cost,
    least_squares_objective,
)
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.solve import ConicSolver, SolveResult, solve
from sosproj.validation import check_array

_NORM_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def feasible_norm_bound(R: Any, *, solver: str = "scs", tol: float = 1e-8, safety: float = 1e-2) -> float:
    r"""An upper bound on :math:`\|y\|_2` over the feasible pseudo-moments of ``R`` (cached).

    With :math:`M(y) \succeq 0` the moment matrix and :math:`A_M` its linear map,
    :math:`\|A_M y\|_2 = \|M(y)\|_F \le \operatorname{tr} M(y) \le \tau`, where
    :math:`\tau = \max_y \operatorname{tr} M(y)` is one linear SDP, so
    :math:`\|y\|_2 \le \tau / \sigma_{\min}(A_M)`. ``tau`` is computed numerically
    and inflated by the relative ``safety`` margin (plus the solve tolerance);
    the bound is ``inf`` when the set is unbounded or :math:`A_M` is rank deficient.

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> bound = feasible_norm_bound(MomentRelaxation(unit_ball(2), 2))
    >>> bool(1.0 < bound < 3.0)    # y = (1, x, x x^T) with ||x|| <= 1
    True
    """
    try:
        cached = _NORM_CACHE.get(R)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    con = compile_constraints(R)
    blk = list(R.psd_blocks)[con.moment_block]
    d = int(blk.order)
    A_M = sp.csr_matrix(blk.A, dtype=float)
    diag_rows = np.arange(d) * (d + 1)
    trace_cost = -np.asarray(A_M[diag_rows].sum(axis=0)).ravel()
    try:
        res = solve(compile_linear(R, trace_cost, solver=solver), solver=(solver, "clarabel"), tol=tol,
                    on_fail="return")
    except (ResourceLimitError, SolverNotAvailableError):
        res = None
    if res is None or not res.converged:
        bound = float("inf")
    else:
        tau = -res.objective
        tau = (1.0 + safety) * tau + 10.0 * tol * (1.0 + abs(tau))
        G = (A_M.T @ A_M).tocsr()
        off = G - sp.diags(G.diagonal())
        if off.count_nonzero() == 0:
            lam = float(G.diagonal().min())
        elif G.shape[0] <= 4000:
            lam = float(np.linalg.eigvalsh(G.toarray())[0])
        else:  # pragma: no cover - large non-diagonal maps
            from scipy.sparse.linalg import eigsh
            lam = float(eigsh(G, k=1, sigma=0, which="LM", return_eigenvectors=False)[0])
        bound = tau / np.sqrt(lam) if lam > 1e-12 else float("inf")
    try:
        _NORM_CACHE[R] = bound
    except TypeError:
        pass
    return bound


class LeastSquaresProjector:
    r"""Weighted least squares over the pseudo-moments of ``R``; compiled once per ``(R, B, weights)``.

    Parameters
    ----------
    R : a ``MomentRelaxation`` (``n_moments``, ``psd_blocks``, ``equalities``).
    B : sparse ``(m, N)`` measurement map (``N = R.n_moments``), e.g. contingency
        cells as Moebius combinations of subset moments, or ``R.readout(k).matrix``.
    weights : ``(m,)`` positive weights (default 1); ``1 / sigma_i^2`` for
        measurements with different noise scales.
    solver, tol, time_limit, max_iter : passed to :class:`~sosproj.sdp.solve.ConicSolver`.
    limit_bytes : memory budget override (default: :func:`~sosproj.validation.check_memory`'s).

    Examples
    --------
    A hand-made relaxation (two variables, degree 2 on the unit disc: moment
    matrix ``[[1, y1, y2], [y1, y11, y12], [y2, y12, y22]]`` and ``1 - y11 - y22 >= 0``):

    >>> import numpy as np, scipy.sparse as sp
    >>> from types import SimpleNamespace
    >>> rows = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8]); cols = np.array([0, 1, 2, 1, 3, 4, 2, 4, 5])
    >>> M = SimpleNamespace(name="moment", order=3, A=sp.csr_matrix((np.ones(9), (rows, cols)), shape=(9, 6)))
    >>> L = SimpleNamespace(name="localizing", order=1, A=sp.csr_matrix([[1.0, 0, 0, -1, 0, -1]]))
    >>> R = SimpleNamespace(n_moments=6, psd_blocks=[M, L],
    ...                     equalities=(sp.csr_matrix([[1.0, 0, 0, 0, 0, 0]]), np.array([1.0])))
    >>> B = sp.csr_matrix(([1.0, 1.0], ([0, 1], [1, 2])), shape=(2, 6))   # measure the means
    >>> proj = LeastSquaresProjector(R, B, solver="clarabel", tol=1e-9)
    >>> y, res = proj.solve(np.array([3.0, 4.0]))    # nearest point of the unit disc to (3, 4)
    >>> np.round(y[1:3], 6).tolist(), res.status
    ([0.6, 0.8], 'solved')
    """

    def __init__(self, R: Any, B: Any, weights: Any = None, *, solver: str = "auto", tol: float = 1e-7,
                 time_limit: float | None = None, max_iter: int | None = None,
                 limit_bytes: float | None = None, **settings: Any) -> None:
        N = int(R.n_moments)
        if not sp.issparse(B):
            B = sp.csr_matrix(check_array(B, "B", ndim=2))
        B = sp.csr_matrix(B, dtype=float)
        if B.shape[1] != N:
            raise InvalidInputError(f"B must have {N} columns (one per pseudo-moment); got shape {B.shape}")
        self.R = R
        self.B = B
        self.weights = _weights(weights, B.shape[0])
        counts = np.diff(B.indptr).astype(np.int64)
        nnz_P = int(min(np.sum(counts * counts), N * N))
        self.memory_estimate = check_relaxation_memory(R, solver, nnz_P, "the least-squares projection",
                                                       limit_bytes)
        con = compile_constraints(R)
        P, F = least_squares_objective(B, self.weights)
        self.problem = ConicProblem(P, np.zeros(N), con.A, con.b, con.cones, 0.0, F,
                                    {"kind": "least_squares", "n_measurements": int(B.shape[0]),
                                     "n_moments": N})
        self.solver_name = solver
        self.tol = tol
        # The workspace is built at the first solve, with that solve's cost: SCS scales the
        # cost vector at setup, and a workspace set up with q = 0 and updated afterwards
        # needed 1.8x the iterations (Boolean cube, n = 8, k = 3).
        self._solver_args = {"tol": tol, "time_limit": time_limit, "max_iter": max_iter,
                             "memory_limit": limit_bytes, **settings}
        self._solver: ConicSolver | None = None

    @property
    def setup_time(self) -> float:
        """Seconds spent building the solver workspace (once; 0 before the first solve)."""
        return self._solver.setup_time if self._solver is not None else 0.0

    def _cost(self, c: Any) -> tuple[np.ndarray, np.ndarray, float]:
        c = check_array(c, "c", ndim=1)
        if c.shape != (self.B.shape[0],):
            raise InvalidInputError(f"c must have length {self.B.shape[0]} (rows of B); got shape {c.shape}")
        q, off = least_squares_cost(self.B, self.weights, c)
        return c, q, off

    def solve(self, c: Any, *, warm_start: bool | None = None, on_fail: str = "raise",
              offset: float | None = None) -> tuple[np.ndarray, SolveResult]:
        """Minimize ``sum_i w_i ((B y)_i - c_i)^2``; return ``(y, SolveResult)``.

        ``result.objective`` is the weighted squared residual (plus ``offset - c'Wc``
        when ``offset`` is given: the tensor projection passes ``||Y||_F^2``).
        """
        _, q, off = self._cost(c)
        off = off if offset is None else offset
        if self._solver is None:
            self._solver = ConicSolver(self.problem.with_data(q=q, offset=off), self.solver_name,
                                       **self._solver_args)
        res = self._solver.solve(q, offset=off, warm_start=warm_start, on_fail=on_fail)
        if res.x is None:  # only reachable with on_fail="return"
            return np.full(self.problem.n, np.nan), res
        return np.asarray(res.x), res

    def lower_bound(self, c: Any, result: SolveResult, *, offset: float | None = None,
                    x_bound: float | None = None) -> dict[str, float]:
        """Certified lower bound on the optimal value from ``result`` (see ``ConicProblem.lower_bound``).

        ``x_bound`` bounds ``||y||_2`` on the feasible set (default:
        :func:`feasible_norm_bound`, computed once per relaxation).
        """
        if result.x is None or result.y_dual is None:
            raise ProjectionError("no primal-dual pair to certify; the solve produced no point",
                                  result.diagnostics())
        _, q, off = self._cost(c)
        prob = self.problem.with_data(q=q, offset=off if offset is None else offset)
        if x_bound is None:
            x_bound = feasible_norm_bound(self.R, solver=self.solver_name)
        return prob.lower_bound(result.x, result.y_dual, x_bound)


__all__ = ["LeastSquaresProjector", "feasible_norm_bound"]

r"""The set :math:`\{X \succeq 0,\ X_{ii} \le b\}` of the paper's cosine-similarity mechanism.

:class:`BoundedDiagonalPSD` is the convex set

.. math:: S_b = \{X \in \mathbb{S}^n : X \succeq 0,\ X_{ii} \le b\ \forall i\},

the set :math:`\mathcal S` of the paper's Algorithm 3 (private pair-wise cosine
similarities) for :math:`b = 1`. Every Gram matrix :math:`VV^T` of vectors of norm at
most :math:`\sqrt b` lies in it, and conversely (a PSD matrix is a Gram matrix).
Since :math:`X \succeq 0` implies :math:`|X_{ij}| \le \sqrt{X_{ii}X_{jj}} \le b`, the set
lies in the box :math:`|X_{ij}| \le b` and in the ball :math:`\|X\|_F \le nb`; it is
exactly the intersection of the PSD cone with the half-spaces :math:`X_{ii} \le b`
(and also of the sets :math:`S_1 = \{X\succeq 0, \|X\|_F \le nb\}` and
:math:`S_2 = \{|X_{ij}| \le b\}` of the paper's Algorithm 4).

Projection methods (``S.project(Y, method=...)``):

* ``"newton"`` (default): exact projection by projected semismooth Newton on the
  dual, a handful of eigendecompositions
  (:func:`~sosproj.sets.newton_bounded_diagonal.bounded_diagonal_newton`);
* ``"dykstra"``: Dykstra's alternating projections, same certificate, hundreds of
  eigendecompositions (:func:`~sosproj.sets.newton_bounded_diagonal.bounded_diagonal_dykstra`);
* ``"cvxpy"``: the conic reference (cvxpy calling SCS by default, ``tol=1e-10``), for
  tests on small ``n``. The problem is written once in sosproj's conic form
  (:class:`~sosproj.sdp.conic.ConicProblem` over the scaled svec of ``X``) and solved by
  the ``"cvxpy"`` backend of :mod:`sosproj.sdp`, whose answers :func:`sosproj.sdp.solve`
  re-checks like any other.

The support function :math:`h_{S_b}(W) = \max\{\langle \mathrm{sym}\,W, X\rangle : X \succeq 0,
X_{ii} \le b\}` is a semidefinite program: for :math:`W` with :math:`\mathrm{sym}\,W`
having a positive eigenvalue it is :math:`b` times the MAXCUT-type SDP
:math:`\max\{\langle W, X\rangle : X \succeq 0, X_{ii} \le 1\}` (the Goemans-Williamson
relaxation with its diagonal equalities relaxed to inequalities; equal to it whenever
an optimal :math:`X` has a unit diagonal, e.g. for graph Laplacians). It is solved in the
same conic form (by the ``"cvxpy"`` backend) and certified by a feasible primal point
(lower bound) and a feasible dual point (upper bound), both reported.

Examples
--------
>>> import numpy as np
>>> S = BoundedDiagonalPSD()
>>> X = S.project(np.array([[2.0, 0.0], [0.0, -1.0]]))
>>> X
array([[1., 0.],
       [0., 0.]])
>>> S.contains(X)
True
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import ProjectionError, SolverNotAvailableError
from sosproj.policy import check_options
from sosproj.sdp.cones import Cones, smat, svec, svec_dim, svec_indices
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.solve import SolveResult, solve
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult, handle_nonconvergence, symmetrize
from sosproj.sets.newton_bounded_diagonal import bounded_diagonal_dykstra, bounded_diagonal_newton
from sosproj.sets.reference import reference_solver
from sosproj.validation import check_choice, check_int, check_memory, check_nonnegative, check_positive

PROJECTION_METHODS = ("newton", "dykstra", "cvxpy")


#: options of every projection method (the keyword parameters of ``_project``)
_COMMON_OPTIONS: tuple[str, ...] = ("method", "tol", "max_iter", "z0", "on_fail", "solver")


class BoundedDiagonalPSD(ConvexSet):
    r"""Symmetric PSD matrices with diagonal at most ``bound``: :math:`\{X \succeq 0, X_{ii} \le b\}`.

    Parameters
    ----------
    bound : the diagonal bound :math:`b \ge 0` (1 for cosine similarities / Gram
        matrices of unit vectors).
    n : optional fixed size; inputs must then be ``n x n``.

    ``violation(X)`` is the largest of the asymmetry :math:`\max|X - X^T|`, the
    negative part of :math:`\lambda_{\min}(\mathrm{sym}\,X)` and :math:`\max_i (X_{ii} - b)_+`.

    >>> import numpy as np
    >>> S = BoundedDiagonalPSD(bound=1.0)
    >>> X, info = S.project(5.0 * np.eye(2), return_info=True)
    >>> X
    array([[1., 0.],
           [0., 1.]])
    >>> info.method, info.converged
    ('newton', True)
    """

    matrix_set = True
    bounded = True

    def __init__(self, bound: float = 1.0, n: int | None = None) -> None:
        self.bound = check_nonnegative(bound, "bound")
        self.shape = None if n is None else (check_int(n, "n", minimum=1),) * 2

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"BoundedDiagonalPSD(bound={self.bound!r})"

    # ------------------------------------------------------------------ project
    def _project(self, Y: np.ndarray, method: str = "newton", tol: float | None = None,
                 max_iter: int | None = None, z0: Any = None, on_fail: str = "raise",
                 solver: str = "scs", **options: Any) -> tuple[np.ndarray, ProjectionInfo]:
        """Dispatch to the Newton, Dykstra or cvxpy projection (see the module docstring).

        Options: ``tol`` (relative KKT residual, default 1e-9; for cvxpy the solver
        tolerance, default 1e-10), ``max_iter``, ``z0`` (dual warm start),
        ``on_fail``, ``solver`` (cvxpy only), and ``cg_max_iter`` (Newton) or
        ``max_time`` (Dykstra).
        """
        check_choice(method, "method", PROJECTION_METHODS)
        n = Y.shape[0]
        check_memory(10.0 * 8 * n * n, "the projection onto BoundedDiagonalPSD")
        Ys = symmetrize(Y)
        if method == "cvxpy":
            check_options(options, _COMMON_OPTIONS, "BoundedDiagonalPSD.project (method='cvxpy')")
            return _project_cvxpy(Ys, self.bound, solver=solver,
                                  eps=1e-10 if tol is None else check_positive(tol, "tol"),
                                  max_iter=100000 if max_iter is None else max_iter, on_fail=on_fail)
        kw: dict[str, Any] = {"tol": 1e-9 if tol is None else tol, "z0": z0, "on_fail": on_fail}
        if max_iter is not None:
            kw["max_iter"] = max_iter
        if method == "newton":
            allowed = ("cg_max_iter",)
            fn = bounded_diagonal_newton
        else:
            allowed = ("max_time",)
            fn = bounded_diagonal_dykstra
        check_options(options, _COMMON_OPTIONS + allowed, f"BoundedDiagonalPSD.project (method={method!r})")
        return fn(Ys, self.bound, **kw, **options)

    # ------------------------------------------------------------------ support
    def _support(self, W: np.ndarray, solver: str = "scs", eps: float = 1e-8,
                 max_iter: int = 100000) -> SupportResult:
        r"""Solve :math:`\max\{\langle \mathrm{sym}\,W, X\rangle : X \succeq 0, X_{ii} \le b\}` with cvxpy.

        If :math:`\mathrm{sym}\,W \preceq 0` the value is 0 at :math:`X = 0` (closed form).
        Otherwise the SDP is solved by ``solver`` (``"scs"`` with ``eps_abs = eps_rel =
        eps``, or ``"clarabel"``, called by cvxpy); the maximizer is projected onto the set (so it is
        feasible) and ``info`` reports ``lower_bound`` (its objective) and
        ``upper_bound`` :math:`= b\sum_i y_i` from the solver's diagonal multipliers
        made dual feasible (:math:`y \leftarrow y + \lambda_{\max}(\mathrm{sym}\,W -
        \mathrm{Diag}\,y)_+`). The true value lies between them; ``value`` is their midpoint.

        >>> import numpy as np
        >>> res = BoundedDiagonalPSD().support(np.ones((3, 3)))
        >>> abs(res.value - 9.0) < 1e-5
        True
        """
        solver = reference_solver(solver)
        eps = check_positive(eps, "eps")
        Ws = symmetrize(W)
        n = Ws.shape[0]
        w = np.linalg.eigvalsh(Ws)
        if w[-1] <= 0 or self.bound == 0.0:
            return SupportResult(0.0, np.zeros_like(Ws),
                                 {"method": "closed-form", "lower_bound": 0.0, "upper_bound": 0.0})
        check_memory(60.0 * 8 * n * n, "the support-function SDP of BoundedDiagonalPSD")
        prob = _conic_form(n, self.bound, q=-svec(Ws))
        t0 = time.perf_counter()
        res = _solve(prob, solver, eps, max_iter)
        elapsed = time.perf_counter() - t0
        if res.status not in ("solved", "inaccurate") or res.x is None or res.y_dual is None:
            raise ProjectionError("the support-function SDP did not solve; try solver='clarabel' or "
                                  "a looser eps", {"status": res.status, "solver": solver.lower()})
        Xf = self.project(smat(res.x, n))
        lower = float(np.vdot(Ws, Xf))
        y = np.maximum(res.y_dual[:n], 0.0)        # multipliers of X_ii <= b (the first n rows)
        shift = max(0.0, float(np.linalg.eigvalsh(Ws - np.diag(y))[-1]))
        upper = self.bound * float(np.sum(y + shift))
        info = {"method": "cvxpy", "solver": solver.lower(), "status": res.status, "eps": eps,
                "lower_bound": lower, "upper_bound": upper, "time": elapsed}
        return SupportResult(0.5 * (lower + upper), Xf, info)

    def _violation(self, X: np.ndarray) -> float:
        asym = float(np.max(np.abs(X - X.T)))
        lmin = float(np.linalg.eigvalsh(symmetrize(X))[0])
        diag_excess = float(np.max(np.diag(X) - self.bound, initial=0.0))
        return max(asym, -lmin, diag_excess, 0.0)

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference (``X`` a symmetric variable)."""
        cp = _import_cvxpy()
        return [X >> 0, cp.diag(X) <= self.bound]


# ---------------------------------------------------------------------- cvxpy reference


def _import_cvxpy() -> Any:
    try:
        import cvxpy as cp
    except ImportError as exc:  # pragma: no cover - cvxpy is a hard dependency
        raise SolverNotAvailableError("cvxpy is required for this reference solve; pip install cvxpy") from exc
    return cp


def _conic_form(n: int, bound: float, *, q: np.ndarray, P: sp.csc_matrix | None = None,
                offset: float = 0.0) -> ConicProblem:
    r"""``min 1/2 x'Px + q'x + offset`` over :math:`x = \mathrm{svec}(X)` with :math:`X_{ii} \le b`
    (``n`` nonnegative rows, first) and :math:`X \succeq 0` (one PSD block)."""
    N = svec_dim(n)
    i, j = svec_indices(n)
    diag_pos = np.flatnonzero(i == j)
    A_diag = sp.csc_matrix((np.ones(n), (np.arange(n), diag_pos)), shape=(n, N))
    A = sp.vstack([A_diag, -sp.identity(N, format="csc")], format="csc")
    b = np.concatenate([np.full(n, float(bound)), np.zeros(N)])
    return ConicProblem(P, q, A, b, Cones(nonneg=n, psd=(n,)), offset=offset)


def _solve(prob: ConicProblem, solver: str, eps: float, max_iter: int) -> SolveResult:
    """The cvxpy reference backend on ``prob``, checked by :func:`sosproj.sdp.solve`."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return solve(prob, solver="cvxpy", cvxpy_solver=solver, tol=eps,
                     max_iter=max_iter if solver == "SCS" else 500, on_fail="return")


def _project_cvxpy(Ys: np.ndarray, bound: float, *, solver: str, eps: float, max_iter: int,
                   on_fail: str) -> tuple[np.ndarray, ProjectionInfo]:
    """Reference projection: ``min 0.5||X - Y||_F^2 s.t. X PSD, diag(X) <= bound`` in conic form."""
    solver = reference_solver(solver)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    n = Ys.shape[0]
    check_memory(60.0 * 8 * n * n, "the cvxpy projection onto BoundedDiagonalPSD")
    # 0.5 ||X - Y||_F^2 = 0.5 ||svec X - svec Y||^2 (the svec is an isometry)
    ysv = svec(Ys)
    prob = _conic_form(n, bound, q=-ysv, P=sp.identity(svec_dim(n), format="csc"),
                       offset=0.5 * float(ysv @ ysv))
    t0 = time.perf_counter()
    res = _solve(prob, solver, eps, max_iter)
    elapsed = time.perf_counter() - t0
    ok = res.converged and res.x is not None
    Xv = smat(res.x, n) if res.x is not None else np.full_like(Ys, np.nan)
    info = ProjectionInfo(f"cvxpy-{solver.lower()}", iterations=int(res.iterations),
                          residual=eps if ok else math.inf, converged=ok, exact=ok, time=elapsed,
                          extra={"status": res.status, "eps": eps})
    handle_nonconvergence(info, on_fail, "the cvxpy projection onto {X PSD, diag(X) <= bound}", Xv)
    return Xv, info


__all__ = ["BoundedDiagonalPSD", "PROJECTION_METHODS"]

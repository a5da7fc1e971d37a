r"""The set of pseudo-moment tensors of a sum-of-squares relaxation, as a :class:`ConvexSet`.

For a moment relaxation ``R`` (:class:`~sosproj.poly.MomentRelaxation`) and an
order ``k``,

.. math::

    S_k(R) = \{\, T(y) = \tilde{\mathbb E}_y[x^{\otimes k}] \;:\; y \text{ feasible for } R \,\}
    \subset \mathbb R^{n\times\cdots\times n},

the set of order-``k`` tensors of degree-``R.degree`` pseudo-distributions (the
paper's SoS relaxation of :math:`\mathrm{conv}\{x^{\otimes k}\}` used for
k-way marginals). Its three operations are conic programs compiled by
:mod:`sosproj.sdp`:

* ``project(Y)``: :math:`\arg\min_{X\in S_k}\|X - Y\|_F` for a **full** tensor ``Y``
  (noise is i.i.d. on all :math:`n^k` entries, so ``Y`` is not symmetric); it is the
  orbit-weighted least squares of :func:`~sosproj.sdp.compile.compile_projection`.
  The constraint data and the SCS workspace are built once per set; every call
  only changes the linear cost and warm-starts from the previous solution.
  ``info.extra`` carries the pseudo-moments, residuals, duality gap, the distance,
  and (with ``certify=True``) a certified lower bound on the distance.
* ``support(W)``: :math:`h_{S_k}(W) = \max_y \langle W, T(y)\rangle` (the SoS value);
  the maximizer is the tensor :math:`T(y^\star)` and ``info["pseudo_moments"]`` is
  :math:`y^\star`.
* ``contains(X, tol)``: ``X`` is projected, the projected pseudo-moments are checked
  with ``R.check``, and the violation is :math:`\|X - \Pi(X)\|_F` (``inf`` when the
  check fails).

Examples
--------
>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> S = PseudoMomentSet(MomentRelaxation(unit_ball(3), 2), 2, solver="clarabel", tol=1e-9)
>>> W = np.diag([0.5, 2.0, -1.0])
>>> round(S.support(W).value, 6)          # closed form: max(lambda_max(W), 0)
2.0
>>> X = S.project(np.diag([3.0, 0.0, 0.0]))
>>> round(float(X[0, 0]), 6)             # trace <= 1 caps the top eigenvalue
1.0
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from sosproj.errors import InvalidInputError
from sosproj.sdp.compile import compile_constraints, compile_linear, support_cost
from sosproj.sdp.cones import single_thread_blas
from sosproj.sdp.least_squares import LeastSquaresProjector, feasible_norm_bound
from sosproj.sdp.lowrank_support import certify_support, support_route
from sosproj.sdp.solve import ConicSolver, check_solver_name
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult, handle_nonconvergence
from sosproj.validation import check_array, check_int, check_positive


class PseudoMomentSet(ConvexSet):
    r"""Order-``k`` pseudo-moment tensors :math:`\{\tilde{\mathbb E}[x^{\otimes k}]\}` of relaxation ``R``.

    Parameters
    ----------
    relaxation : a ``MomentRelaxation`` with ``k <= relaxation.degree``.
    k : tensor order.
    solver : ``"auto"`` (default: sosproj's ADMM where the relaxation has its diagonal structure,
        as the unit ball and the Boolean cube do, SCS otherwise or when ADMM stops short;
        projections with a moment matrix of order >= 400 go to ``"lowrank"`` (the same ADMM with
        partial eigendecompositions, :data:`~sosproj.sdp.backends.admm.AUTO_PROJECTION_LOWRANK_MIN_ORDER`);
        tensor supports of unit-ball relaxations go to ``"rankone"`` from moment order 200 and to
        ``"rankone_newton"`` from order 496, see :mod:`sosproj.sdp.lowrank_support`), ``"admm"``,
        ``"lowrank"`` (partial eigendecompositions; supports over the unit ball: certified stopping),
        ``"rankone"`` (supports over the unit ball: power-method candidate and a dual certificate,
        falling back to ``"lowrank"``), ``"rankone_newton"`` (the same candidate, a rough
        Douglas-Rachford dual, then a semismooth Newton polish), ``"scs"``, ``"clarabel"``, ``"mosek"`` or
        ``"cvxpy"`` (the reference).
        Support values over unit-ball relaxations carry a certified interval in ``info``
        (``upper_bound``, ``lower_bound``, ``certified_relative_gap``; with ``certify=True`` also
        atom extraction and ``tight``).
    tol : relative residual / gap tolerance of the conic solves.
    time_limit, max_iter : passed to the solver.
    check_tol : tolerance of ``R.check`` applied to every projection (default ``100 * tol``).

    Examples
    --------
    Degree-2 unit ball, ``k = 2``: the set is :math:`\{X \succeq 0, \operatorname{tr} X \le 1\}`.

    >>> import numpy as np
    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> S = PseudoMomentSet(MomentRelaxation(unit_ball(2), 2), 2, tol=1e-9)
    >>> np.round(S.project(np.diag([2.0, 0.0])), 4) + 0.0
    array([[1., 0.],
           [0., 0.]])
    >>> round(S.support(np.diag([1.0, -1.0])).value, 4)
    1.0
    """

    bounded = True
    matrix_set = False

    def __init__(self, relaxation: Any, k: int, *, solver: str = "auto", tol: float = 1e-7,
                 time_limit: float | None = None, max_iter: int | None = None,
                 check_tol: float | None = None) -> None:
        self.relaxation = relaxation
        self.k = check_int(k, "k", minimum=1, maximum=int(getattr(relaxation, "degree", k)))
        self.readout = relaxation.readout(self.k)
        self.n = int(self.readout.n)
        self.shape = (self.n,) * self.k
        self.solver = check_solver_name(solver)
        self.tol = check_positive(tol, "tol")
        self.time_limit = time_limit
        self.max_iter = max_iter
        self.check_tol = check_positive(check_tol, "check_tol") if check_tol is not None else 100.0 * self.tol
        # Workspaces are keyed by thread as well: a solver workspace (SCS's C state, the ADMM's
        # buffers and penalty) must not be shared by concurrent solves, and one set is shared by
        # the threads of joblib's threading backend or an in-process Dask cluster.
        self._projectors: dict[tuple[str, float, int], LeastSquaresProjector] = {}
        self._supports: dict[tuple[str, float, int], ConicSolver] = {}

    # ------------------------------------------------------------ workspaces
    def projector(self, solver: str | None = None, tol: float | None = None) -> LeastSquaresProjector:
        """The compiled projection workspace (built on first use, then reused)."""
        key = (solver or self.solver, float(tol or self.tol), threading.get_ident())
        proj = self._projectors.get(key)
        if proj is None:
            ro = self.readout
            proj = LeastSquaresProjector(self.relaxation, ro.matrix, np.asarray(ro.weights, dtype=float),
                                         solver=key[0], tol=key[1], time_limit=self.time_limit,
                                         max_iter=self.max_iter)
            self._projectors[key] = proj
        return proj

    def _support_solver(self, solver: str, tol: float, cost: np.ndarray) -> ConicSolver:
        key = (solver, float(tol), threading.get_ident())
        ws = self._supports.get(key)
        if ws is None:  # built with the first cost (SCS scales the cost at setup)
            name, settings = support_route(self.relaxation, solver, tol, self.k)
            prob = compile_linear(self.relaxation, cost, solver=name)
            ws = ConicSolver(prob, name, tol=tol, time_limit=self.time_limit, max_iter=self.max_iter,
                             **settings)
            self._supports[key] = ws
        return ws

    # ------------------------------------------------------- public operations
    def project(self, Y: Any, *, return_info: bool = False, **options: Any
                ) -> np.ndarray | tuple[np.ndarray, ProjectionInfo]:
        r"""Euclidean projection :math:`\arg\min_{X\in S_k}\|X - Y\|_F` of a full order-``k`` tensor ``Y``.

        Parameters
        ----------
        Y : array of shape ``(n,) * k``, finite. It need not be symmetric (Gaussian noise on
            all :math:`n^k` entries is not): since every point of the set is a symmetric tensor,
            the projection of ``Y`` is that of its symmetrization (the orbit-weighted least
            squares of :func:`~sosproj.sdp.compile.compile_projection`), and the reported
            distance is the distance from ``Y`` itself.
        return_info : also return the :class:`~sosproj.sets.base.ProjectionInfo`.
        solver : keyword, default the set's ``solver`` (``"auto"``: sosproj's ADMM, its partial-eigendecomposition
            variant ``"lowrank"`` from moment order 400, SCS where the relaxation lacks its structure or the
            ADMM stops short; also ``"lowrank"``, ``"admm"``, ``"scs"``,
            ``"clarabel"``, ``"mosek"``, ``"cvxpy"``). A workspace is compiled per solver and
            tolerance on first use and reused, warm-started, by later calls.
        tol : keyword, default the set's ``tol`` (``1e-7``): relative primal/dual residual and
            duality-gap tolerance of the conic solve.
        warm_start : keyword, start from the previous solution (default: the solver's choice).
        on_fail : keyword, ``"raise"`` (default: :class:`~sosproj.errors.ProjectionError`),
            ``"warn"`` or ``"return"`` when the solve misses ``tol`` or the pseudo-moments fail
            ``relaxation.check`` at ``check_tol``.
        certify : keyword, ``True`` adds a certified lower bound on the distance (from a dual
            feasible point): ``info.extra["distance_lower_bound"]`` and ``"certified_gap"``.

        Returns
        -------
        The projected tensor, shape ``(n,) * k`` (NaN when the solver returned no point and
        ``on_fail="return"``); with ``return_info``, also the diagnostics: ``info.extra`` holds
        ``pseudo_moments`` (the solution ``y``), ``solver``, ``status``, residuals, ``duality_gap``,
        ``distance``, ``min_eigenvalue``, ``relaxation_check``, setup and solve times.

        Examples
        --------
        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> S = PseudoMomentSet(MomentRelaxation(unit_ball(2), 2), 2, solver="clarabel", tol=1e-9)
        >>> X, info = S.project(np.array([[3.0, 1.0], [-1.0, 0.0]]), return_info=True, certify=True)
        >>> np.round(X, 4) + 0.0                      # same as projecting the symmetric part diag(3, 0)
        array([[1., 0.],
               [0., 0.]])
        >>> info.converged, info.extra["distance_lower_bound"] <= info.extra["distance"] + 1e-6
        (True, True)
        """
        return super().project(Y, return_info=return_info, **options)

    def support(self, W: Any, **options: Any) -> SupportResult:
        r"""Support function :math:`h_{S_k}(W) = \max_{y\ \mathrm{feasible}}\langle W, T(y)\rangle` (the SoS value).

        Parameters
        ----------
        W : array of shape ``(n,) * k``, finite. It need not be symmetric: every point of the
            set is a symmetric tensor, so :math:`\langle W, T\rangle = \langle \mathrm{sym}(W), T\rangle`
            and the value is that of the symmetrization of ``W`` (average over index
            permutations).
        solver : keyword, default the set's ``solver`` (see :meth:`project`); the workspace is
            compiled on first use and reused (only the cost changes between calls).
        tol : keyword, default the set's ``tol``: residual and duality-gap tolerance.
        on_fail : keyword, ``"raise"`` (default), ``"warn"`` or ``"return"`` when the solve
            misses ``tol``.
        certify : keyword, ``True`` adds ``info["upper_bound"]``, a certified upper bound on the
            value from a dual feasible point (``value <= upper_bound`` up to rounding).

        Returns
        -------
        :class:`~sosproj.sets.base.SupportResult`: ``value``, the maximizer tensor ``point`` and
        ``info`` with ``pseudo_moments`` (:math:`y^\star`), ``solver``, ``status``, ``converged``,
        residuals, ``duality_gap``, ``iterations``, ``time`` and ``relaxation_check``. The value
        is ``NaN`` and ``point`` ``None`` when the solver returned no point.

        Examples
        --------
        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> S = PseudoMomentSet(MomentRelaxation(unit_ball(2), 2), 2, solver="clarabel", tol=1e-9)
        >>> res = S.support(np.array([[0.5, 2.0], [0.0, -1.0]]), certify=True)
        >>> round(res.value, 4)        # lambda_max of the symmetric part [[0.5, 1], [1, -1]]
        1.0
        >>> bool(res.value <= res.info["upper_bound"] + 1e-6)
        True
        """
        return super().support(W, **options)

    # -------------------------------------------------------------- project
    def _project(self, Y: np.ndarray, *, solver: str | None = None, tol: float | None = None,
                 warm_start: bool | None = None, on_fail: str = "raise", certify: bool = False
                 ) -> tuple[np.ndarray, ProjectionInfo]:
        t0 = time.perf_counter()
        proj = self.projector(solver, tol)
        Ybar = self.readout.from_tensor(Y)
        total = float(np.sum(Y * Y))
        y, res = proj.solve(Ybar, warm_start=warm_start, on_fail="return", offset=total)
        extra: dict[str, Any] = {"solver": res.solver, "status": res.status,
                                 "primal_residual": res.primal_residual, "dual_residual": res.dual_residual,
                                 "duality_gap": res.duality_gap, "setup_time": proj.setup_time,
                                 "solve_time": res.time}
        converged = res.converged
        if res.x is not None and np.all(np.isfinite(y)):
            X = self.readout.to_tensor(self.readout(y))
            with single_thread_blas():
                chk = self.relaxation.check(y, tol=self.check_tol)
            extra.update({"pseudo_moments": y, "relaxation_check": bool(chk.ok),
                          "min_eigenvalue": float(min(chk.min_eigenvalues.values())),
                          "equality_residual": float(chk.equality_residual),
                          "distance": float(np.sqrt(max(res.objective, 0.0)))})
            converged = converged and bool(chk.ok)
            if certify and res.converged:
                lb = proj.lower_bound(Ybar, res, offset=total)
                extra.update({"distance_lower_bound": float(np.sqrt(max(lb["lower_bound"], 0.0))),
                              "objective_lower_bound": lb["lower_bound"], "certified_gap": lb["gap"]})
        else:
            X = np.full(self.shape, np.nan)
        info = ProjectionInfo(f"sdp-{res.solver}", res.iterations,
                              max(res.primal_residual, res.dual_residual, res.duality_gap), converged, True,
                              time.perf_counter() - t0, extra)
        handle_nonconvergence(info, on_fail, "pseudo-moment projection", X)
        return X, info

    def project_batch(self, Ys: Any, *, return_info: bool = False, **options: Any
                      ) -> np.ndarray | tuple[np.ndarray, list[ProjectionInfo]]:
        """Project a stack ``Ys`` of shape ``(b, n, ..., n)``: one compilation, warm-started solves.

        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> S = PseudoMomentSet(MomentRelaxation(unit_ball(2), 2), 2, solver="clarabel", tol=1e-9)
        >>> S.project_batch(np.stack([np.eye(2), 2 * np.eye(2)])).shape
        (2, 2, 2)
        """
        Ys = check_array(Ys, "Ys", ndim=self.k + 1)
        if Ys.shape[1:] != self.shape:
            raise InvalidInputError(f"Ys must have shape (batch, {', '.join(map(str, self.shape))}); "
                                    f"got {Ys.shape}")
        out = np.empty(Ys.shape)
        infos = []
        for i in range(Ys.shape[0]):
            out[i], info = self.project(Ys[i], return_info=True, **options)
            infos.append(info)
        return (out, infos) if return_info else out

    # -------------------------------------------------------------- support
    def _support(self, W: np.ndarray, *, solver: str | None = None, tol: float | None = None,
                 on_fail: str = "raise", certify: bool = False) -> SupportResult:
        solver = solver or self.solver
        tol = float(tol or self.tol)
        cost = support_cost(self.relaxation, self.k, W)
        ws = self._support_solver(solver, tol, cost)
        res = ws.solve(cost, offset=0.0, on_fail=on_fail)
        info: dict[str, Any] = {"solver": res.solver, "status": res.status, "converged": res.converged,
                                "primal_residual": res.primal_residual, "dual_residual": res.dual_residual,
                                "duality_gap": res.duality_gap, "iterations": res.iterations,
                                "time": res.time}
        if res.x is None:
            return SupportResult(float("nan"), None, info)
        y = np.asarray(res.x)
        info["pseudo_moments"] = y
        with single_thread_blas():
            chk = self.relaxation.check(y, tol=self.check_tol)
        info["relaxation_check"] = bool(chk.ok)
        cert = certify_support(self.relaxation, ws.problem, cost, res, atoms=certify, tol=tol, k=self.k)
        if cert is not None:
            info.update(cert)
        elif certify and res.converged:
            prob = ws.problem.with_data(q=cost, offset=0.0)
            lb = prob.lower_bound(y, res.y_dual, feasible_norm_bound(self.relaxation, solver=solver))
            info["upper_bound"] = -lb["lower_bound"]
        value = -res.objective
        if cert is not None and np.isfinite(cert["lower_bound"]) and cert["lower_bound"] <= cert["upper_bound"]:
            # the reported value lies in the certified interval [feasible value, dual bound]
            value = float(np.clip(value, cert["lower_bound"], cert["upper_bound"]))
        return SupportResult(float(value), self.readout.to_tensor(self.readout(y)), info)

    # -------------------------------------------------------------- contains
    def _violation(self, X: np.ndarray) -> float:
        P, info = self._project(X, on_fail="return")
        if not info.converged or not info.extra.get("relaxation_check", False):
            return float("inf")
        return float(np.linalg.norm(X - P))

    def constraint_data(self) -> Any:
        """The compiled constraint rows (shared by projection and support)."""
        return compile_constraints(self.relaxation)

    def __repr__(self) -> str:
        return f"PseudoMomentSet({self.relaxation!r}, k={self.k}, solver={self.solver!r})"


__all__ = ["PseudoMomentSet"]

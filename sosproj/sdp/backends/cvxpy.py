"""cvxpy backend: the same conic problem written as a cvxpy model (the reference).

The model is written from the *mathematical* content of the
:class:`~sosproj.sdp.conic.ConicProblem` (``s = b - Ax``; each PSD block is
rebuilt as the full symmetric matrix ``smat(s_block)`` and constrained with
``>> 0``), so it does not share the svec-permutation code of the direct
backends, and cvxpy canonicalizes it again for whichever solver it calls
(``cvxpy_solver``, default Clarabel for tight references; ``"SCS"`` for the
cvxpy+SCS timings of the benchmark). Duals are mapped back to the canonical
convention (cvxpy's equality duals carry the opposite sign).

>>> import numpy as np, scipy.sparse as sp
>>> from sosproj.sdp.conic import ConicProblem, Cones
>>> prob = ConicProblem(None, np.array([1.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]), Cones(nonneg=1))
>>> sol = CvxpyBackend(prob, tol=1e-9).solve()
>>> sol.status, round(float(sol.x[0]), 6)
('solved', 1.0)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import SolverNotAvailableError
from sosproj.sdp.backends.base import RawSolution, SolverBackend
from sosproj.sdp.backends.scs import ScsBackend
from sosproj.sdp.cones import SQRT2, Cones, svec, svec_dim, svec_indices
from sosproj.sdp.conic import ConicProblem


def smat_operator(d: int) -> sp.csr_matrix:
    """Sparse ``T`` with ``T @ svec(X) = vec(X)`` (row-major) for symmetric ``X``.

    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [2.0, 5.0]])
    >>> bool(np.allclose(smat_operator(2) @ svec(X), X.ravel()))
    True
    """
    i, j = svec_indices(d, "scs")
    k = np.arange(len(i))
    scale = np.where(i == j, 1.0, 1.0 / SQRT2)
    off = i != j
    rows = np.concatenate([i * d + j, j[off] * d + i[off]])
    cols = np.concatenate([k, k[off]])
    vals = np.concatenate([scale, scale[off]])
    return sp.csr_matrix((vals, (rows, cols)), shape=(d * d, svec_dim(d)))


class CvxpyBackend(SolverBackend):
    """A cvxpy model of one :class:`ConicProblem`; the cost ``q`` is a cvxpy Parameter.

    Options: ``cvxpy_solver`` (the solver cvxpy calls, ``"CLARABEL"``, ``"SCS"`` or
    ``"MOSEK"``) and ``solver_options`` (a dict passed to ``cvxpy.Problem.solve``,
    overriding the settings derived from ``tol``, ``max_iter`` and ``time_limit``).
    """

    name = "cvxpy"
    options = {"cvxpy_solver": "CLARABEL", "solver_options": None}
    #: the solver cvxpy calls when the options do not name one (subclasses fix it)
    fixed_solver = "CLARABEL"
    status_map = {"optimal": "solved", "optimal_inaccurate": "inaccurate", "infeasible": "infeasible",
                  "infeasible_inaccurate": "infeasible", "unbounded": "unbounded",
                  "unbounded_inaccurate": "unbounded", "user_limit": "max_iter", "solver_error": "error"}

    def _require(self) -> None:
        """Hook for subclasses that need more than cvxpy (a licence); nothing here."""

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """cvxpy's canonicalized copy (about 5x the sparse data) plus the called solver's
        workspace (SCS's estimate)."""
        return int(ScsBackend.estimate_memory(n, cones, nnz_A, nnz_P) + 5 * 12 * (nnz_A + nnz_P))

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **options)
        self._require()
        cvxpy_solver = str(self.options.get("cvxpy_solver", self.fixed_solver))
        try:
            import cvxpy as cp
        except ImportError as exc:  # pragma: no cover - cvxpy is a hard dependency
            raise SolverNotAvailableError("the cvxpy backend needs the 'cvxpy' package; pip install cvxpy") from exc
        solver_name = cvxpy_solver.upper()
        if solver_name not in cp.installed_solvers():
            raise SolverNotAvailableError(f"cvxpy cannot find the solver {solver_name!r}; install it or pick "
                                          f"one of {', '.join(cp.installed_solvers())}")
        self._cp = cp
        self.solver_name = solver_name
        self.settings = dict(self.options["solver_options"] or {})
        n = problem.n
        x = cp.Variable(n)
        self.x = x
        self.qp = cp.Parameter(n)
        self.qp.value = problem.q
        obj = self.qp @ x + problem.offset
        if problem.P is not None:
            if problem.P_factor is not None:
                obj = obj + 0.5 * cp.sum_squares(problem.P_factor @ x)
            else:
                obj = obj + 0.5 * cp.quad_form(x, cp.psd_wrap(problem.P))
        sexpr = problem.b - problem.A @ x
        c = problem.cones
        self.constraints: list[tuple[str, Any, int]] = []
        cons = []
        row = 0
        if c.zero:
            con = sexpr[row:row + c.zero] == 0
            cons.append(con)
            self.constraints.append(("zero", con, c.zero))
            row += c.zero
        if c.nonneg:
            con = sexpr[row:row + c.nonneg] >= 0
            cons.append(con)
            self.constraints.append(("nonneg", con, c.nonneg))
            row += c.nonneg
        for qd in c.soc:
            con = cp.SOC(sexpr[row], sexpr[row + 1:row + qd]) if qd > 1 else sexpr[row] >= 0
            cons.append(con)
            self.constraints.append(("soc" if qd > 1 else "nonneg", con, qd))
            row += qd
        for d in c.psd:
            m = svec_dim(d)
            M = cp.reshape(smat_operator(d) @ sexpr[row:row + m], (d, d), order="C")
            con = M >> 0
            cons.append(con)
            self.constraints.append(("psd", con, d))
            row += m
        self.model = cp.Problem(cp.Minimize(obj), cons)
        self._built()

    def _solver_opts(self) -> dict[str, Any]:
        tol = self.tol
        if self.solver_name == "SCS":
            opts = {"eps_abs": tol, "eps_rel": tol, "max_iters": self.max_iter or 100_000}
            if self.time_limit is not None:
                opts["time_limit_secs"] = self.time_limit
        elif self.solver_name == "CLARABEL":
            opts = {"tol_gap_abs": tol, "tol_gap_rel": tol, "tol_feas": tol,
                    "static_regularization_constant": 1e-7}
            if self.max_iter is not None:
                opts["max_iter"] = self.max_iter
            if self.time_limit is not None:
                opts["time_limit"] = self.time_limit
        else:  # MOSEK
            opts = {"mosek_params": {"MSK_DPAR_INTPNT_CO_TOL_REL_GAP": tol, "MSK_DPAR_INTPNT_CO_TOL_PFEAS": tol,
                                     "MSK_DPAR_INTPNT_CO_TOL_DFEAS": tol}}
            if self.time_limit is not None:
                opts["mosek_params"]["MSK_DPAR_OPTIMIZER_MAX_TIME"] = self.time_limit
        opts.update(self.settings)
        return opts

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Solve through cvxpy (``warm_start`` is passed to cvxpy as a hint for SCS only)."""
        cp = self._cp
        if q is not None:
            self.qp.value = np.asarray(q, dtype=float)
        t0 = time.perf_counter()
        try:
            self.model.solve(solver=self.solver_name, warm_start=warm_start is not None,
                             **self._solver_opts())
        except cp.error.SolverError as exc:
            return RawSolution(None, None, None, "error", f"solver error: {type(exc).__name__}", 0,
                               time.perf_counter() - t0, self.setup_time)
        wall = time.perf_counter() - t0
        raw = str(self.model.status)
        status = self.status_map.get(raw, "error")
        stats = self.model.solver_stats
        iters = int(stats.num_iters) if stats is not None and stats.num_iters is not None else 0
        if status != "solved" or self.x.value is None:
            return RawSolution(self.x.value, None, None, status, raw, iters, wall, self.setup_time)
        x = np.asarray(self.x.value, dtype=float)
        s = self.problem.b - self.problem.A @ x
        y = np.empty(self.problem.m)
        row = 0
        for kind, con, size in self.constraints:
            if kind == "psd":
                Z = np.asarray(con.dual_value, dtype=float)
                m = svec_dim(size)
                y[row:row + m] = svec(Z)
                row += m
            elif kind == "soc":
                dv = con.dual_value
                y[row] = float(np.ravel(dv[0])[0])
                y[row + 1:row + size] = np.ravel(dv[1])
                row += size
            else:
                dv = np.ravel(np.asarray(con.dual_value, dtype=float))
                y[row:row + size] = -dv if kind == "zero" else dv
                row += size
        return RawSolution(x, y, s, status, raw, iters, wall, self.setup_time,
                           {"cvxpy_solver": self.solver_name,
                            "compilation_time": float(getattr(stats, "setup_time", 0.0) or 0.0)})


__all__ = ["CvxpyBackend", "smat_operator"]

"""Clarabel backend: an interior-point method (accurate, but dense on PSD blocks).

Clarabel solves the same form as SCS (``Ax + s = b``, ``s`` in a product cone,
``P`` upper triangular) but its ``PSDTriangleConeT(d)`` expects the scaled svec
of the **upper triangle column by column**; the canonical rows (SCS order) are
permuted with :func:`~sosproj.sdp.cones.svec_permutation` on the way in and
back on the way out. Its Nesterov-Todd scaling makes each PSD block a dense
``d(d+1)/2``-square block of the KKT matrix, which is why
:meth:`ClarabelBackend.estimate_memory` charges it quadratically.

Status mapping: only ``Solved`` is ``"solved"``; ``AlmostSolved`` is
``"inaccurate"``; ``MaxIterations`` / ``MaxTime`` map to ``"max_iter"`` /
``"time_limit"``. The static KKT regularization is raised to ``1e-7`` (see the
comment in ``Backend``); pass ``static_regularization_constant=...`` to override.
Interior-point methods do not warm-start: ``warm_start`` is
ignored, but a new cost reuses the workspace through ``update(q=...)`` when
Clarabel allows it.

>>> import numpy as np, scipy.sparse as sp
>>> from sosproj.sdp.conic import ConicProblem, Cones
>>> prob = ConicProblem(None, np.array([1.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]), Cones(nonneg=1))
>>> sol = ClarabelBackend(prob, tol=1e-9).solve()
>>> sol.status, round(float(sol.x[0]), 6)
('solved', 1.0)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import SolverNotAvailableError
from sosproj.sdp.backends.base import RawSolution, SolverBackend, iterate_bytes, sparse_kkt_entries
from sosproj.sdp.cones import Cones, svec_dim, svec_permutation
from sosproj.sdp.conic import ConicProblem

#: settings sosproj changes from Clarabel's defaults (see the comment in ``ClarabelBackend``)
_OVERRIDES: dict[str, Any] = {"verbose": False, "presolve_enable": False, "static_regularization_constant": 1e-7,
                              "chordal_decomposition_enable": False}


def row_permutation(problem: ConicProblem) -> np.ndarray:
    """Row permutation ``p`` with ``clarabel_rows = canonical_rows[p]``.

    >>> import numpy as np, scipy.sparse as sp
    >>> from sosproj.sdp.conic import ConicProblem, Cones
    >>> prob = ConicProblem(None, np.zeros(1), sp.csc_matrix(np.ones((7, 1))), np.zeros(7),
    ...                     Cones(zero=1, psd=(3,)))
    >>> row_permutation(prob).tolist()
    [0, 1, 2, 4, 3, 5, 6]
    """
    perm = np.arange(problem.m)
    for sl, d in zip(problem.cones.psd_slices(), problem.cones.psd):
        perm[sl] = sl.start + svec_permutation(d, "scs", "clarabel")
        assert sl.stop - sl.start == svec_dim(d)
    return perm


class ClarabelBackend(SolverBackend):
    """A Clarabel workspace for one :class:`ConicProblem` (only ``q`` may change).

    Options: the fields of ``clarabel.DefaultSettings`` (defaults: Clarabel's, with
    sosproj's overrides); they are applied after the ones derived from ``tol``,
    ``max_iter`` and ``time_limit``.
    """

    name = "clarabel"
    accept_checked_inaccurate = True
    status_map = {"Solved": "solved", "AlmostSolved": "inaccurate", "MaxIterations": "max_iter",
                  "MaxTime": "time_limit", "PrimalInfeasible": "infeasible", "AlmostPrimalInfeasible": "infeasible",
                  "DualInfeasible": "unbounded", "AlmostDualInfeasible": "unbounded"}

    @classmethod
    def accepted_options(cls) -> dict[str, Any]:
        """Every field of ``clarabel.DefaultSettings`` with its default (sosproj's overrides applied)."""
        try:
            import clarabel
        except ImportError:  # pragma: no cover - clarabel is a hard dependency
            return dict(_OVERRIDES)
        st = clarabel.DefaultSettings()
        out = {key: getattr(st, key) for key in dir(st)
               if not key.startswith("_") and not callable(getattr(st, key))}
        out.update(_OVERRIDES)
        return out

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """Dense Nesterov-Todd blocks: ``svec_dim(d)^2`` entries per PSD block (matrix and LDL
        factor, 16 bytes per entry), plus the sparse part of the KKT system."""
        dense = sum(svec_dim(d) ** 2 for d in cones.psd)
        return int(16 * dense + 12 * 4 * sparse_kkt_entries(n, cones, nnz_A, nnz_P) + iterate_bytes(n, cones))

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **settings: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **settings)
        try:
            import clarabel
        except ImportError as exc:  # pragma: no cover - clarabel is a hard dependency
            raise SolverNotAvailableError("the Clarabel backend needs the 'clarabel' package; "
                                          "pip install clarabel") from exc
        self._clarabel = clarabel
        self.perm = row_permutation(problem)
        self.A = problem.A[self.perm, :].tocsc()
        self.b = problem.b[self.perm]
        n = problem.n
        self.P = (sp.triu(problem.P, format="csc") if problem.P is not None
                  else sp.csc_matrix((n, n)))
        c = problem.cones
        cones = []
        if c.zero:
            cones.append(clarabel.ZeroConeT(c.zero))
        if c.nonneg:
            cones.append(clarabel.NonnegativeConeT(c.nonneg))
        cones.extend(clarabel.SecondOrderConeT(q) for q in c.soc)
        cones.extend(clarabel.PSDTriangleConeT(d) for d in c.psd)
        self.cones = cones
        st = clarabel.DefaultSettings()
        # The least-squares objectives have a large null space (P = 2 B'WB acts only on the
        # read-out moments); a static regularization of 1e-7 (default 1e-8, in _OVERRIDES) keeps
        # the KKT factorization stable and avoids AlmostSolved stalls on degenerate moment SDPs
        # (measured on unit-ball relaxations, n = 5..7: 10x smaller errors).
        for key, val in _OVERRIDES.items():
            setattr(st, key, val)
        st.tol_gap_abs = tol
        st.tol_gap_rel = tol
        st.tol_feas = tol
        st.tol_ktratio = min(st.tol_ktratio, tol)
        if max_iter is not None:
            st.max_iter = int(max_iter)
        if time_limit is not None:
            st.time_limit = float(time_limit)
        for key, val in self.user_options.items():
            setattr(st, key, val)
        self.settings = st
        self._q = problem.q
        self._solver = clarabel.DefaultSolver(self.P, self._q, self.A, self.b, self.cones, st)
        self._built()

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Solve (after replacing the cost by ``q``); ``warm_start`` is ignored (interior point)."""
        if q is not None:
            self._q = np.asarray(q, dtype=float)
            try:
                self._solver.update(q=self._q)
            except Exception:  # data updates not allowed in this configuration: rebuild
                self._solver = self._clarabel.DefaultSolver(self.P, self._q, self.A, self.b, self.cones,
                                                            self.settings)
        t0 = time.perf_counter()
        sol = self._solver.solve()
        wall = time.perf_counter() - t0
        raw = str(sol.status)
        status = self.status_map.get(raw, "error")
        y = np.empty(self.problem.m)
        s = np.empty(self.problem.m)
        y[self.perm] = np.asarray(sol.z)
        s[self.perm] = np.asarray(sol.s)
        return RawSolution(np.asarray(sol.x), y, s, status, raw, int(sol.iterations), wall, self.setup_time,
                           {"solver_r_prim": float(sol.r_prim), "solver_r_dual": float(sol.r_dual)})


__all__ = ["ClarabelBackend", "row_permutation"]

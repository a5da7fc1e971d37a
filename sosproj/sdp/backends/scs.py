"""SCS backend (default): operator splitting with SCS's native quadratic objective.

SCS solves ``min 1/2 x'Px + c'x  s.t.  Ax + s = b, s in K`` with cones in the
order zero (``z``), nonnegative (``l``), second-order (``q``), PSD (``s``) and
PSD blocks in the scaled lower-triangular column-major svec: exactly the
canonical form of :class:`~sosproj.sdp.conic.ConicProblem`, so no permutation is
needed. The workspace (KKT factorization) is built once; a new cost ``q`` goes
through ``SCS.update(c=...)`` and the previous ``(x, y, s)`` warm-starts.

Status mapping: SCS's ``status_val`` 1 is ``"solved"``; 2 (``"solved
(inaccurate - ...)"``) is **not** solved: it maps to ``"max_iter"``,
``"time_limit"`` or ``"inaccurate"``.

>>> import numpy as np, scipy.sparse as sp
>>> from sosproj.sdp.conic import ConicProblem, Cones
>>> prob = ConicProblem(None, np.array([1.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]), Cones(nonneg=1))
>>> sol = ScsBackend(prob, tol=1e-9).solve()
>>> sol.status, round(float(sol.x[0]), 6)
('solved', 1.0)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sosproj.errors import SolverNotAvailableError
from sosproj.sdp.backends.base import RawSolution, SolverBackend, iterate_bytes, sparse_kkt_entries
from sosproj.sdp.cones import Cones
from sosproj.sdp.conic import ConicProblem


class ScsBackend(SolverBackend):
    """A compiled SCS workspace for one :class:`ConicProblem` (only ``q`` may change).

    Options: SCS's own settings (``normalize``, ``scale``, ``adaptive_scale``,
    ``rho_x``, ``alpha``, ``acceleration_lookback``, ...); they override the ones
    derived from ``tol``, ``max_iter`` and ``time_limit``.
    """

    name = "scs"
    warm_start = True
    #: SCS 3 settings (``None``: SCS's own default)
    options = {key: None for key in (
        "normalize", "scale", "adaptive_scale", "rho_x", "max_iters", "eps_abs", "eps_rel", "eps_infeas",
        "alpha", "time_limit_secs", "verbose", "warm_start", "acceleration_lookback",
        "acceleration_interval", "write_data_filename", "log_csv_filename", "use_indirect", "gpu", "mkl")}
    status_map = {1: "solved", -1: "unbounded", -2: "infeasible", -6: "unbounded", -7: "infeasible",
                  -3: "error", -4: "error", -5: "error", 0: "error"}

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """Sparse LDL factor of the quasi-definite KKT matrix ``[[P + rho I, A^T], [A, -D]]``.

        ``nnz(P) + nnz(A) + n + m`` entries, a fill factor of 4 and 12 bytes per entry
        (value + index), plus a dense eigendecomposition workspace of ``3 d^2`` doubles
        for the largest PSD block and the iterate vectors.
        """
        dmax = max(cones.psd, default=0)
        return int(12 * 4 * sparse_kkt_entries(n, cones, nnz_A, nnz_P) + 8 * 3 * dmax * dmax
                   + iterate_bytes(n, cones))

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **settings: Any) -> None:
        super().__init__(problem, tol, max_iter, time_limit, **settings)
        try:
            import scs
        except ImportError as exc:  # pragma: no cover - scs is a hard dependency
            raise SolverNotAvailableError("the SCS backend needs the 'scs' package; pip install scs") from exc
        c = problem.cones
        cone: dict[str, Any] = {"z": c.zero, "l": c.nonneg}
        if c.soc:
            cone["q"] = list(c.soc)
        if c.psd:
            cone["s"] = list(c.psd)
        data = {"A": problem.A, "b": problem.b, "c": problem.q}
        if problem.P is not None:
            data["P"] = problem.P
        opts: dict[str, Any] = {"eps_abs": tol, "eps_rel": tol, "eps_infeas": min(1e-9, tol * 1e-2),
                                "verbose": False, "max_iters": int(max_iter) if max_iter else 100_000}
        if time_limit is not None:
            opts["time_limit_secs"] = float(time_limit)
        opts.update(self.user_options)
        self._solver = scs.SCS(data, cone, **opts)
        self._built()
        self._q = problem.q

    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Solve (after replacing the cost by ``q``), optionally from ``(x, y, s)``."""
        if q is not None:
            q = np.asarray(q, dtype=float)
            self._solver.update(c=q)
            self._q = q
        t0 = time.perf_counter()
        if warm_start is not None:
            x0, y0, s0 = (np.asarray(v, dtype=float) for v in warm_start)
            out = self._solver.solve(True, x0, y0, s0)
        else:
            out = self._solver.solve(False)
        wall = time.perf_counter() - t0
        info = out["info"]
        code = int(info["status_val"])
        raw = str(info["status"])
        if code == 2:
            low = raw.lower()
            status = "max_iter" if "max_iters" in low else "time_limit" if "time" in low else "inaccurate"
        else:
            status = self.status_map.get(code, "error")
        return RawSolution(np.asarray(out["x"]), np.asarray(out["y"]), np.asarray(out["s"]), status, raw,
                           int(info["iter"]), wall, self.setup_time,
                           {"solver_res_pri": float(info["res_pri"]), "solver_res_dual": float(info["res_dual"]),
                            "solver_gap": float(info["gap"])})


__all__ = ["ScsBackend"]

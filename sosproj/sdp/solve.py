r"""Solve a :class:`~sosproj.sdp.conic.ConicProblem` with a chosen backend, checked.

Every answer is re-checked here, independently of the solver's own report: the
relative primal residual, dual residual and duality gap (SCS's definitions,
:meth:`ConicProblem.residuals`) and the cone violations of ``s`` and ``y`` are
recomputed from the returned ``(x, y, s)``. A result is **converged** only if
the solver says "solved" *and* all these numbers are at most ``check_factor * tol``
(default factor 10). SCS's "solved (inaccurate ...)" never counts. An
``"inaccurate"`` answer of a backend that declares ``accept_checked_inaccurate``
(Clarabel's ``AlmostSolved``: its interior-point method stalls around 1e-9 on
degenerate moment SDPs) counts only when the recomputed numbers pass that same bar
(``info["accepted_by_check"] = True``). The cone violations need only be shown within the bar: PSD
blocks of order at least :data:`~sosproj.sdp.cones.CONE_CHECK_CHOLESKY_MIN_ORDER` are bounded by a Cholesky
factorization each (an upper bound on the distance, ``info["cone_violation_bounded"]``), not a dense
``eigvalsh``, and get their exact distance where that bound fails (issue 15's session 29: two order-5,151
``eigvalsh`` cost ~20 s CPU at ``n = 100``). Anything else raises
:class:`~sosproj.errors.ProjectionError` with the diagnostics in ``err.info``
(``on_fail="raise"``), warns (``"warn"``) or is returned with
``converged=False`` (``"return"``); it is never passed off as exact.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> from sosproj.sdp.conic import ConicProblem, Cones
>>> # nearest point of {x >= 1} to 3:  min (x - 3)^2 = x^2 - 6x + 9
>>> prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([-6.0]), sp.csc_matrix([[-1.0]]),
...                     np.array([-1.0]), Cones(nonneg=1), offset=9.0)
>>> res = solve(prob, solver="clarabel", tol=1e-9)
>>> res.status, round(float(res.x[0]), 6), round(res.objective, 6)
('solved', 3.0, 0.0)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError, ResourceLimitError, SolverNotAvailableError
from sosproj.policy import apply_on_fail, check_on_fail
from sosproj.sdp import cones as _cones
from sosproj.sdp.backends import BACKENDS, RawSolution, backend_class, estimate_memory
from sosproj.sdp.backends.admm import auto_options, auto_route
from sosproj.sdp.conic import ConicProblem
from sosproj.validation import check_memory, check_positive

#: ``solver`` accepts one name or a fallback chain such as ``("scs", "clarabel")``.
SolverSpec = str | Sequence[str]

def auto_backend(problem: ConicProblem) -> str:
    """The structured backend ``solver="auto"`` tries first on ``problem``: ``"lowrank"`` for
    projections with a PSD block of order at least
    :data:`~sosproj.sdp.backends.admm.AUTO_PROJECTION_LOWRANK_MIN_ORDER`, else ``"admm"`` (SCS
    takes over when the problem lacks their structure); :func:`~sosproj.sdp.backends.admm.auto_route`.

    >>> import numpy as np, scipy.sparse as sp
    >>> from sosproj.sdp.conic import ConicProblem, Cones
    >>> auto_backend(ConicProblem(None, np.ones(1), sp.csc_matrix([[-1.0]]), np.zeros(1), Cones(nonneg=1)))
    'admm'
    """
    return auto_route(problem.cones, problem.P.count_nonzero() if problem.P is not None else 0)


def auto_backend_options(problem: ConicProblem) -> dict[str, Any]:
    """The options ``solver="auto"`` gives :func:`auto_backend`'s choice unless the caller set them:
    ``device="auto"`` (a GPU where PyTorch sees one, else the host) for projections with a PSD block of
    order at least :data:`~sosproj.sdp.backends.admm.AUTO_PROJECTION_DEVICE_MIN_ORDER`;
    :func:`~sosproj.sdp.backends.admm.auto_options`.

    >>> import numpy as np, scipy.sparse as sp
    >>> from sosproj.sdp.conic import ConicProblem, Cones
    >>> auto_backend_options(ConicProblem(None, np.ones(1), sp.csc_matrix([[-1.0]]), np.zeros(1), Cones(nonneg=1)))
    {}
    """
    return auto_options(problem.cones, problem.P.count_nonzero() if problem.P is not None else 0)


@dataclass(frozen=True)
class SolveResult:
    """A checked solution of a conic problem.

    Attributes
    ----------
    x, y_dual, s : primal variables, dual variables (canonical svec order, in the
        dual cone) and slacks; ``None`` where the solver produced nothing.
    status : ``"solved"`` or the failure class (``"inaccurate"``, ``"max_iter"``,
        ``"time_limit"``, ``"infeasible"``, ``"unbounded"``, ``"error"``, ``"unconverged"``).
    objective : primal objective ``1/2 x'Px + q'x + offset`` at ``x``.
    primal_residual, dual_residual, duality_gap : relative measures recomputed here.
    iterations, time : solver iterations and solve wall time (seconds; setup excluded).
    solver : backend name. converged : the acceptance test above.
    info : raw status, setup time, cone violations, tolerance, attempts of a fallback chain.
    """

    x: np.ndarray | None
    y_dual: np.ndarray | None
    s: np.ndarray | None
    status: str
    objective: float
    primal_residual: float
    dual_residual: float
    duality_gap: float
    iterations: int
    time: float
    solver: str
    converged: bool = False
    info: dict[str, Any] = field(default_factory=dict)

    def diagnostics(self) -> dict[str, Any]:
        """Plain dict of the scalar diagnostics (no arrays, JSON friendly)."""
        out = {"status": self.status, "objective": self.objective, "primal_residual": self.primal_residual,
               "dual_residual": self.dual_residual, "duality_gap": self.duality_gap,
               "iterations": self.iterations, "time": self.time, "solver": self.solver,
               "converged": self.converged}
        out.update({k: v for k, v in self.info.items() if np.isscalar(v) or v is None})
        return out


def _names(solver: SolverSpec) -> tuple[str, ...]:
    names = (solver,) if isinstance(solver, str) else tuple(solver)
    if not names:
        raise InvalidParameterError("solver must name at least one backend, e.g. solver='scs'")
    for name in names:
        if name not in BACKENDS and name != "auto":
            raise InvalidParameterError(f"solver must be 'auto', one of {', '.join(map(repr, BACKENDS))} "
                                        "or a tuple of them (a fallback chain)")
    return names


def check_solver_name(solver: Any) -> str:
    """Validate one solver name (``"auto"`` or a backend) and return it.

    >>> check_solver_name("auto")
    'auto'
    """
    if not isinstance(solver, str):
        raise InvalidParameterError("solver must be a string such as 'auto', 'admm' or 'scs'")
    (name,) = _names(solver)
    return name


class ConicSolver:
    """A compiled solver workspace: build once, then solve for many linear costs ``q``.

    ``problem`` fixes ``P, A, b`` and the cones; :meth:`solve` takes a new ``q``
    (and ``offset``) and warm-starts from the previous solution when the backend
    supports it (SCS, ADMM). Memory is checked (``check_memory`` with the backend's
    estimate, :func:`~sosproj.sdp.backends.estimate_memory`) before anything
    is built: the one memory check of the solver layer.

    ``solver="auto"`` builds the ADMM backend (:mod:`sosproj.sdp.backends.admm`; for projections
    with large blocks its ``lowrank`` variant, :func:`auto_backend`) when
    the problem has its structure and SCS otherwise; when ADMM stops short of the
    tolerance (iteration cap), SCS is built and warm-started from ADMM's last point
    (``info["attempts"]`` records both; a time limit is not extended). On projections with a block of
    order at least :data:`~sosproj.sdp.backends.admm.AUTO_PROJECTION_DEVICE_MIN_ORDER` it also asks for
    ``device="auto"`` (:func:`auto_backend_options`): a GPU where PyTorch sees one (``info["device"]``),
    the host otherwise or when the device lacks the memory (``info["auto_note"]``); an explicit ``device=``
    wins.

    A workspace is not thread-safe: concurrent solves need one workspace per thread
    (``PseudoMomentSet`` keeps one per thread).

    >>> import numpy as np, scipy.sparse as sp
    >>> from sosproj.sdp.conic import ConicProblem, Cones
    >>> prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([0.0]), sp.csc_matrix([[-1.0]]),
    ...                     np.array([-1.0]), Cones(nonneg=1))
    >>> ws = ConicSolver(prob, solver="scs", tol=1e-8)
    >>> [round(float(ws.solve(q=np.array([-2.0 * t])).x[0]), 5) for t in (0.0, 3.0)]
    [1.0, 3.0]
    """

    def __init__(self, problem: ConicProblem, solver: str = "scs", *, tol: float = 1e-7,
                 time_limit: float | None = None, max_iter: int | None = None, check_factor: float = 10.0,
                 memory_limit: float | None = None, **settings: Any) -> None:
        (name,) = _names(solver) if isinstance(solver, str) else (None,)
        if name is None:
            raise InvalidParameterError("ConicSolver takes one solver name; use solve(...) for a fallback chain")
        self.tol = check_positive(tol, "tol")
        self.check_factor = check_positive(check_factor, "check_factor")
        if time_limit is not None:
            check_positive(time_limit, "time_limit")
        self.problem = problem
        self.requested = name
        self._args = {"tol": self.tol, "max_iter": max_iter, "time_limit": time_limit, **settings}
        est = estimate_memory(problem.n, problem.cones, problem.A.nnz,
                              problem.P.nnz if problem.P is not None else 0, name)
        self.memory_estimate = est
        check_memory(est, f"the {name} workspace of a conic problem with {problem.n} variables and "
                          f"PSD blocks of orders {list(problem.cones.psd)}", limit_bytes=memory_limit)
        self._fallback: Any = None
        self.structure_note: str | None = None
        if name == "auto":
            route = auto_backend(problem)
            extra = {k: v for k, v in auto_backend_options(problem).items() if k not in settings}
            try:
                try:
                    self._backend = backend_class(route)(problem, **{**extra, **self._args})
                except ResourceLimitError as exc:
                    if not extra:
                        raise
                    # the device chosen by "auto" lacks the memory (refused before any work): the host
                    self.structure_note = str(exc)
                    self._backend = backend_class(route)(problem, **self._args)
                self.name = route
            except SolverNotAvailableError as exc:     # no diagonal structure: SCS directly
                self.structure_note = str(exc)
                self._backend = self._scs(problem)
                self.name = "scs"
        else:
            self._backend = backend_class(name)(problem, **self._args)
            self.name = name
        self.setup_time = float(self._backend.setup_time)
        self._last: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._q = problem.q
        self._offset = problem.offset

    def solve(self, q: np.ndarray | None = None, *, offset: float | None = None,
              warm_start: bool | tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              on_fail: str = "raise") -> SolveResult:
        """Solve with cost ``q`` (default: the problem's); ``warm_start=None`` reuses the last solution.

        ``warm_start=False`` starts cold; a tuple ``(x, y, s)`` starts there.
        """
        check_on_fail(on_fail)
        if q is not None:
            q = np.asarray(q, dtype=float)
            if q.shape != (self.problem.n,):
                raise InvalidParameterError(f"q must have length {self.problem.n}")
            self._q = q
        if offset is not None:
            self._offset = float(offset)
        if warm_start is None or warm_start is True:
            ws = self._last
        elif warm_start is False:
            ws = None
        else:
            ws = tuple(np.asarray(v, dtype=float) for v in warm_start)  # type: ignore[assignment]
        raw = self._backend.solve(q=q, warm_start=ws)
        result = self._check(raw, self.name)
        if (not result.converged and self.requested == "auto" and self.name in ("admm", "lowrank")
                and result.status in ("max_iter", "unconverged", "inaccurate", "error")):
            result = self._fall_back(raw, result)
        if result.converged and result.x is not None and result.y_dual is not None and result.s is not None:
            self._last = (result.x, result.y_dual, result.s)
        return _apply_policy(result, on_fail)

    def _scs(self, problem: ConicProblem) -> Any:
        """SCS for ``solver="auto"``: the common arguments, not ADMM's own settings."""
        return backend_class("scs")(problem, **{key: self._args[key] for key in ("tol", "max_iter", "time_limit")})

    def _fall_back(self, raw: RawSolution, first: SolveResult) -> SolveResult:
        """``solver="auto"``: SCS, warm-started from the ADMM's (``admm`` or ``lowrank``) last point."""
        if self._fallback is None:
            self._fallback = self._scs(self.problem.with_data(q=self._q, offset=self._offset))
        ws = (raw.x, raw.y, raw.s) if raw.x is not None and raw.y is not None and raw.s is not None else None
        raw2 = self._fallback.solve(q=self._q, warm_start=ws)
        second = self._check(raw2, "scs")
        info = dict(second.info)
        info["attempts"] = [(first.solver, first.status), ("scs", second.status)]
        info["admm_iterations"] = first.iterations
        return SolveResult(second.x, second.y_dual, second.s, second.status, second.objective,
                           second.primal_residual, second.dual_residual, second.duality_gap,
                           first.iterations + second.iterations, first.time + second.time, "scs",
                           second.converged, info)

    def _check(self, raw: RawSolution, name: str) -> SolveResult:
        prob = self.problem
        info: dict[str, Any] = {"raw_status": raw.raw_status, "setup_time": self.setup_time,
                                "tol": self.tol, "memory_estimate": self.memory_estimate}
        if self.structure_note is not None:
            info["auto_note"] = self.structure_note
        device = getattr(self._backend, "device", None)
        if device is not None:
            info["device"] = device
        info.update(raw.extra)
        if (raw.x is None or raw.y is None or raw.s is None
                or not all(np.all(np.isfinite(v)) for v in (raw.x, raw.y, raw.s))):
            return SolveResult(raw.x, raw.y, raw.s, raw.status if raw.status != "solved" else "error",
                               float("nan"), float("inf"), float("inf"), float("inf"), raw.iterations,
                               raw.solve_time, name, False, info)
        cur = prob.with_data(q=self._q, offset=self._offset)
        scale_s = 1.0 + float(np.linalg.norm(raw.s))
        scale_y = 1.0 + float(np.linalg.norm(raw.y))
        bound = self.check_factor * self.tol
        # the cone violations only need to be shown <= bound: large PSD blocks by one Cholesky factorization
        # each (an upper bound, reported as such) instead of a dense eigvalsh; the exact distance where that fails
        res = cur.residuals(raw.x, raw.y, raw.s, cone_budget=(bound * scale_s, bound * scale_y))
        cone_p = res["cone_primal"] / scale_s
        cone_d = res["cone_dual"] / scale_y
        info.update({"cone_violation_primal": cone_p, "cone_violation_dual": cone_d})
        if any(d >= _cones.CONE_CHECK_CHOLESKY_MIN_ORDER for d in prob.cones.psd):
            info["cone_violation_bounded"] = True
        ok_numbers = max(res["primal"], res["dual"], res["gap"], cone_p, cone_d) <= bound
        status = raw.status
        if status == "solved" and not ok_numbers:
            if raw.raw_status == "certified" and raw.extra.get("cert_relative_gap", np.inf) <= \
                    raw.extra.get("cert_gap_tol", 0.0):
                # the low-rank backend stops on a certified relative gap (recomputed bounds from a
                # repaired dual and a feasible point), a stronger test than small residuals
                info["accepted_by_certificate"] = True
            else:
                status = "unconverged"
        if status == "inaccurate" and backend_class(name).accept_checked_inaccurate and ok_numbers:
            # e.g. Clarabel's AlmostSolved whose recomputed residuals, gap and cone violations
            # pass the same bar as any "solved" answer: solved to the requested tolerance.
            status = "solved"
            info["accepted_by_check"] = True
        converged = status == "solved"
        return SolveResult(raw.x, raw.y, raw.s, status, cur.objective(raw.x), res["primal"], res["dual"],
                           res["gap"], raw.iterations, raw.solve_time, name, converged, info)


def _apply_policy(result: SolveResult, on_fail: str) -> SolveResult:
    if result.converged or on_fail == "return":
        return result
    msg = (f"conic solve with {result.solver!r} ended with status {result.status!r} "
           f"(solver said {result.info.get('raw_status')!r}) after {result.iterations} iterations: "
           f"primal residual {result.primal_residual:.2e}, dual residual {result.dual_residual:.2e}, "
           f"gap {result.duality_gap:.2e} against tol {result.info.get('tol', float('nan')):.1e}; raise "
           "max_iter or time_limit, loosen tol, or try solver=('scs', 'clarabel')")
    payload = result.diagnostics()
    payload["value"] = result.x
    apply_on_fail(False, on_fail, msg, payload, stacklevel=4)
    return result


def solve(problem: ConicProblem, solver: SolverSpec = "scs", *, tol: float = 1e-7,
          time_limit: float | None = None, max_iter: int | None = None,
          warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, on_fail: str = "raise",
          check_factor: float = 10.0, **settings: Any) -> SolveResult:
    """Solve ``problem`` once; ``solver`` may be a fallback chain like ``("scs", "clarabel")``.

    In a chain, a backend that is unavailable, too large for memory or does not
    converge hands over to the next; ``info["attempts"]`` lists ``(solver, status)`` of every try. The
    last failure is raised (or returned flagged) if none converges.

    >>> import numpy as np, scipy.sparse as sp
    >>> from sosproj.sdp.conic import ConicProblem, Cones
    >>> prob = ConicProblem(None, np.array([1.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]),
    ...                     Cones(nonneg=1))
    >>> r = solve(prob, solver=("mosek", "scs"), tol=1e-8)   # falls back when MOSEK is missing
    >>> r.solver, r.status
    ('scs', 'solved')
    """
    check_on_fail(on_fail)
    names = _names(solver)
    attempts: list[tuple[str, str]] = []
    last_error: Exception | None = None
    last_result: SolveResult | None = None
    t0 = time.perf_counter()
    for name in names:
        try:
            ws = ConicSolver(problem, name, tol=tol, time_limit=time_limit, max_iter=max_iter,
                             check_factor=check_factor, **settings)
            res = ws.solve(warm_start=warm_start if warm_start is not None else False, on_fail="return")
        except (SolverNotAvailableError, ResourceLimitError) as exc:
            if len(names) == 1:
                raise
            attempts.append((name, "not available" if isinstance(exc, SolverNotAvailableError)
                             else "too large"))
            last_error = exc
            continue
        attempts.append((name, res.status))
        info = dict(res.info)
        info["attempts"] = list(attempts)
        info["total_time"] = time.perf_counter() - t0
        res = SolveResult(res.x, res.y_dual, res.s, res.status, res.objective, res.primal_residual,
                          res.dual_residual, res.duality_gap, res.iterations, res.time, res.solver,
                          res.converged, info)
        last_result = res
        if res.converged:
            return res
    if last_result is None:
        assert last_error is not None
        raise last_error
    return _apply_policy(last_result, on_fail)


__all__ = ["solve", "SolveResult", "ConicSolver", "SolverSpec", "check_solver_name", "auto_backend",
           "auto_backend_options"]

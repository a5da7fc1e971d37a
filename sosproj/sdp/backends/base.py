r"""The backend contract: what every solver of :mod:`sosproj.sdp` provides.

A backend turns one :class:`~sosproj.sdp.conic.ConicProblem` into a compiled
workspace and solves it for one or many linear costs ``q``. The contract, modelled
on cvxpy's ``reductions/solvers/solver.py``, is the abstract class
:class:`SolverBackend`; :mod:`sosproj.sdp.backends` keeps the registry (one line
per backend: ``name -> "module:Class"``), and :mod:`sosproj.sdp.solve` checks
every answer independently of what the backend reports.

Examples
--------
>>> from sosproj.sdp.backends import backend_class
>>> cls = backend_class("scs")
>>> issubclass(cls, SolverBackend), cls.name, cls.warm_start
(True, 'scs', True)
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from sosproj.policy import check_options
from sosproj.sdp.cones import Cones
from sosproj.sdp.conic import ConicProblem

#: the normalized statuses a backend may report
STATUSES: tuple[str, ...] = ("solved", "inaccurate", "max_iter", "time_limit", "infeasible", "unbounded",
                             "error")


@dataclass
class RawSolution:
    """What a backend returns: canonical ``x, y, s`` and normalized status.

    ``status`` is one of :data:`STATUSES`; ``raw_status`` is the solver's own
    string. ``x, y, s`` follow the canonical conventions of
    :mod:`sosproj.sdp.conic` (SCS's svec order, dual ``y`` in the dual cone);
    ``None`` where the solver produced nothing.
    """

    x: np.ndarray | None
    y: np.ndarray | None
    s: np.ndarray | None
    status: str
    raw_status: str
    iterations: int
    solve_time: float
    setup_time: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class SolverBackend(ABC):
    """Abstract solver backend: one compiled workspace for one :class:`ConicProblem`.

    A backend declares

    * ``name``: the registry name (``solver="scs"``), lowercase;
    * ``options``: the backend-specific keyword options it accepts, with their
      defaults (:meth:`accepted_options` may compute them, e.g. from the solver's
      own settings object). The common arguments ``tol``, ``max_iter`` and
      ``time_limit`` are not options. Any other keyword is refused by
      :func:`sosproj.policy.check_options` in ``__init__`` (one error class and
      message shape for every set and solver), before anything is built;
    * ``status_map``: the solver's own statuses mapped to :data:`STATUSES`;
    * ``warm_start``: whether :meth:`solve` uses a ``(x, y, s)`` warm start;
    * ``accept_checked_inaccurate``: whether an ``"inaccurate"`` answer whose
      recomputed residuals, gap and cone violations pass the same bar as a solved
      one counts as solved (Clarabel's ``AlmostSolved``);
    * :meth:`estimate_memory`: peak bytes of the workspace from the problem's sizes
      alone (the one memory check, in :class:`~sosproj.sdp.solve.ConicSolver`,
      refuses a problem before the backend is built);
    * :meth:`solve`: solve for a new cost ``q`` (the workspace is reused), returning a
      :class:`RawSolution` in canonical conventions.

    A subclass calls ``super().__init__(problem, tol, max_iter, time_limit, **options)``
    first (it validates the options and fills ``self.options`` with defaults), builds
    its workspace and sets ``self.setup_time``. It raises
    :class:`~sosproj.errors.SolverNotAvailableError` when its package, licence or a
    structure it needs is missing, so that a fallback chain moves on.

    Adding a backend: write the subclass in ``sosproj/sdp/backends/<name>.py`` and add
    one line ``"<name>": "sosproj.sdp.backends.<name>:<Class>"`` to
    :data:`sosproj.sdp.backends.BACKENDS`.
    """

    name: ClassVar[str] = ""
    options: ClassVar[Mapping[str, Any]] = {}
    status_map: ClassVar[Mapping[Any, str]] = {}
    warm_start: ClassVar[bool] = False
    accept_checked_inaccurate: ClassVar[bool] = False

    def __init__(self, problem: ConicProblem, tol: float = 1e-7, max_iter: int | None = None,
                 time_limit: float | None = None, **options: Any) -> None:
        accepted = self.accepted_options()
        check_options(options, accepted, f"solver {self.name!r}")
        self.problem = problem
        self.tol = float(tol)
        self.max_iter = int(max_iter) if max_iter else None
        self.time_limit = float(time_limit) if time_limit is not None else None
        self.options: dict[str, Any] = {**accepted, **options}     # type: ignore[misc]
        self.user_options: dict[str, Any] = dict(options)
        self.setup_time = 0.0
        self._t0 = time.perf_counter()

    @classmethod
    def accepted_options(cls) -> Mapping[str, Any]:
        """The backend-specific options and their defaults."""
        return cls.options

    @classmethod
    @abstractmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """Estimated peak bytes of the workspace for a problem of these sizes (nothing is built)."""

    @abstractmethod
    def solve(self, q: np.ndarray | None = None,
              warm_start: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> RawSolution:
        """Solve (after replacing the cost by ``q``), optionally from ``(x, y, s)``."""

    def _built(self) -> None:
        """Record the setup time (call at the end of a subclass's ``__init__``)."""
        self.setup_time = time.perf_counter() - self._t0


def sparse_kkt_entries(n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
    """Entries of the quasi-definite KKT matrix ``[[P + rho I, A'], [A, -D]]`` (the sparse part)."""
    return nnz_A + nnz_P + n + cones.dim


def iterate_bytes(n: int, cones: Cones) -> int:
    """Bytes of about ten iterate vectors of length ``n + m``."""
    return 8 * 10 * (n + cones.dim)


__all__ = ["SolverBackend", "RawSolution", "STATUSES", "sparse_kkt_entries", "iterate_bytes"]

"""Thin translators from a :class:`~sosproj.sdp.conic.ConicProblem` to each solver.

Each backend module exposes a workspace class ``Backend(problem, tol, max_iter,
time_limit)`` whose ``solve(q=None, warm_start=None)`` returns a
:class:`RawSolution` in the canonical conventions of :mod:`sosproj.sdp.conic`
(SCS's svec order, dual ``y`` in the dual cone). Compiling the workspace is the
expensive step; ``solve`` may be called many times with a new linear cost ``q``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError

#: every backend module; ``"admm"`` is sosproj's own structure-exploiting splitting method,
#: ``"lowrank"`` its partial-eigendecomposition variant with certified stopping (support functions)
BACKENDS = ("scs", "clarabel", "mosek", "cvxpy", "admm", "lowrank")


@dataclass
class RawSolution:
    """What a backend returns: canonical ``x, y, s`` and normalized status.

    ``status`` is one of ``"solved"``, ``"inaccurate"``, ``"max_iter"``,
    ``"time_limit"``, ``"infeasible"``, ``"unbounded"``, ``"error"``;
    ``raw_status`` is the solver's own string.
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


def get_backend(name: str) -> type:
    """Return the ``Backend`` class of a solver name (imports lazily).

    >>> get_backend("scs").__name__
    'Backend'
    """
    if name not in BACKENDS:
        raise InvalidParameterError(f"solver must be one of {', '.join(map(repr, BACKENDS))}; got {name!r}")
    module = importlib.import_module(f"sosproj.sdp.backends.{name}")
    return module.Backend


__all__ = ["RawSolution", "get_backend", "BACKENDS"]

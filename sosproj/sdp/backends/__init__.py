"""The solver backends of :mod:`sosproj.sdp` and their registry.

Every backend subclasses :class:`~sosproj.sdp.backends.base.SolverBackend` (the
contract: name, accepted options with defaults, memory estimate, status map,
``solve`` returning a :class:`~sosproj.sdp.backends.base.RawSolution` in the
canonical conventions of :mod:`sosproj.sdp.conic`). :data:`BACKENDS` maps each
solver name to its class; adding a backend is one line there. Modules are
imported on first use.

>>> backend_class("clarabel").name
'clarabel'
>>> estimate_memory(10, Cones(zero=1, psd=(4,)), 20, 0, "scs") > 0
True
"""

from __future__ import annotations

import importlib

from sosproj.errors import InvalidParameterError
from sosproj.sdp.backends.base import RawSolution, SolverBackend
from sosproj.sdp.cones import Cones

#: solver name -> ``"module:Class"`` of its backend (``"admm"``: sosproj's own
#: structure-exploiting splitting method; ``"cvxpy"``: the reference model)
BACKENDS: dict[str, str] = {
    "scs": "sosproj.sdp.backends.scs:ScsBackend",
    "clarabel": "sosproj.sdp.backends.clarabel:ClarabelBackend",
    "mosek": "sosproj.sdp.backends.mosek:MosekBackend",
    "cvxpy": "sosproj.sdp.backends.cvxpy:CvxpyBackend",
    "admm": "sosproj.sdp.backends.admm:AdmmBackend",
    "lowrank": "sosproj.sdp.backends.lowrank:LowrankBackend",    # supports: certified stop; projections: auto >= 400
    "ssnal": "sosproj.sdp.backends.ssnal:SsnalBackend",          # projections: semismooth Newton AL
    "rankone": "sosproj.sdp.backends.rankone:RankOneBackend",    # supports: rank-one candidate + dual certificate
    "rankone_newton": "sosproj.sdp.backends.rankone_newton:RankOneNewtonBackend",  # + semismooth Newton polish
}


def backend_class(name: str) -> type[SolverBackend]:
    """Return the backend class registered under ``name`` (imports its module lazily).

    >>> backend_class("scs").__name__
    'ScsBackend'
    """
    if not isinstance(name, str) or name not in BACKENDS:
        raise InvalidParameterError(f"solver must be one of {', '.join(map(repr, BACKENDS))}; got {name!r}")
    module, cls = BACKENDS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def estimate_memory(n: int, cones: Cones, nnz_A: int, nnz_P: int, solver: str) -> int:
    """Estimated peak bytes of a solver's workspace, from sizes alone (before building anything).

    ``solver`` is a backend name (its :meth:`~SolverBackend.estimate_memory`) or
    ``"auto"`` (ADMM, or its ``lowrank`` variant where :func:`~sosproj.sdp.backends.admm.auto_route`
    picks it, with SCS as fallback: :func:`sosproj.sdp.backends.admm.auto_memory`).
    """
    if solver == "auto":
        from sosproj.sdp.backends.admm import MAX_COUPLED_ROWS, _coupled_rows, auto_memory, auto_route

        est = auto_memory(n, cones, nnz_A, nnz_P)
        route = auto_route(cones, nnz_P)
        if route != "admm" and _coupled_rows(cones) <= MAX_COUPLED_ROWS:     # e.g. lowrank for projections
            est = max(est, int(backend_class(route).estimate_memory(n, cones, nnz_A, nnz_P)))
        return est
    if solver not in BACKENDS:
        raise InvalidParameterError(f"solver must be 'auto' or one of {', '.join(map(repr, BACKENDS))}; "
                                    f"got {solver!r}")
    return int(backend_class(solver).estimate_memory(n, cones, nnz_A, nnz_P))


__all__ = ["BACKENDS", "backend_class", "estimate_memory", "RawSolution", "SolverBackend"]

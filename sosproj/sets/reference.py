r"""Slow exact references through cvxpy: projection and support of any set with a cvxpy description.

Sets that can describe themselves to cvxpy implement
``cvxpy_constraints(X) -> list`` for a cvxpy variable ``X`` (symmetric for
matrix sets). These references are what the fast projections are tested
against; they are not meant to be fast.

Examples
--------
>>> import numpy as np
>>> from sosproj.sets import Box
>>> from sosproj.sets.reference import cvxpy_project
>>> np.round(cvxpy_project(Box(0, 1), np.array([2.0, 0.5])), 6)
array([1. , 0.5])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.errors import InputTypeError, InvalidParameterError, ProjectionError
from sosproj.sets.base import ConvexSet, SupportResult, symmetrize
from sosproj.validation import check_positive

_OK = ("optimal",)

#: the solvers a cvxpy reference may call, in sosproj's (lowercase) solver names
REFERENCE_SOLVERS: tuple[str, ...] = ("scs", "clarabel")


def reference_solver(solver: Any) -> str:
    """Validate a reference solver name (sosproj's lowercase names; any case is accepted) and
    return cvxpy's name for it.

    >>> reference_solver("scs"), reference_solver("CLARABEL")
    ('SCS', 'CLARABEL')
    """
    if not isinstance(solver, str) or solver.lower() not in REFERENCE_SOLVERS:
        raise InvalidParameterError(f"solver must be one of {', '.join(map(repr, REFERENCE_SOLVERS))}; "
                                    f"got {solver!r}")
    return solver.upper()


def _check_set(S: Any) -> None:
    if not isinstance(S, ConvexSet):
        raise InputTypeError(f"S must be a sosproj ConvexSet; got {type(S).__name__}")


def _variable(S: ConvexSet, shape: tuple[int, ...]) -> Any:
    import cvxpy as cp

    if S.matrix_set:
        return cp.Variable(shape, symmetric=True)
    return cp.Variable(shape)


def _solve(problem: Any, solver: str | None, tol: float) -> None:

    # SCS at eps 1e-10 is the most accurate reference here: Clarabel through cvxpy stalls
    # around 1e-6 on PSD + second-order problems (measured on 4x4 PSD-Frobenius-ball projections).
    solver = reference_solver(solver or "scs")
    kwargs: dict[str, Any] = {}
    if solver == "SCS":
        kwargs = {"eps_abs": tol, "eps_rel": tol, "max_iters": 500_000}
    elif solver == "CLARABEL":
        kwargs = {"tol_gap_abs": tol, "tol_gap_rel": tol, "tol_feas": tol, "max_iter": 500}
    problem.solve(solver=solver, **kwargs)
    if problem.status not in _OK:
        raise ProjectionError(f"cvxpy reference solve ended with status {problem.status!r}",
                              {"status": problem.status, "solver": solver})


def cvxpy_project(S: ConvexSet, Y: Any, *, solver: str | None = None, tol: float = 1e-10) -> np.ndarray:
    """Projection of ``Y`` onto ``S`` by a cvxpy solve (reference implementation).

    >>> import numpy as np
    >>> from sosproj.sets import PSDCone
    >>> np.round(cvxpy_project(PSDCone(), np.diag([1.0, -1.0])), 6) + 0.0
    array([[1., 0.],
           [0., 0.]])
    """
    import cvxpy as cp

    _check_set(S)
    Y = S._check_input(Y, "Y")
    check_positive(tol, "tol")
    if not hasattr(S, "cvxpy_constraints"):
        raise InputTypeError(f"{type(S).__name__} has no cvxpy description")
    target = symmetrize(Y) if S.matrix_set else Y
    X = _variable(S, Y.shape)
    obj = cp.Minimize(cp.sum_squares(X - target))
    prob = cp.Problem(obj, S.cvxpy_constraints(X))
    _solve(prob, solver, tol)
    return np.asarray(X.value, dtype=float)


def cvxpy_support(S: ConvexSet, W: Any, *, solver: str | None = None, tol: float = 1e-10
                  ) -> SupportResult:
    """Support function of ``S`` at ``W`` by a cvxpy solve (reference implementation).

    >>> import numpy as np
    >>> from sosproj.sets import Spectraplex
    >>> round(cvxpy_support(Spectraplex(1.0), np.diag([2.0, -1.0])).value, 6)
    2.0
    """
    import cvxpy as cp

    _check_set(S)
    W = S._check_input(W, "W")
    check_positive(tol, "tol")
    if not hasattr(S, "cvxpy_constraints"):
        raise InputTypeError(f"{type(S).__name__} has no cvxpy description")
    X = _variable(S, W.shape)
    Wt = symmetrize(W) if S.matrix_set else W
    prob = cp.Problem(cp.Maximize(cp.sum(cp.multiply(Wt, X))), S.cvxpy_constraints(X))
    _solve(prob, solver, tol)
    return SupportResult(float(prob.value), np.asarray(X.value, dtype=float),
                         {"method": "cvxpy", "status": prob.status})


__all__ = ["cvxpy_project", "cvxpy_support", "reference_solver", "REFERENCE_SOLVERS"]

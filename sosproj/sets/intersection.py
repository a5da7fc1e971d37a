r"""Intersections of convex sets: Dykstra's exact projection and the paper's averaged projections.

Three methods, all built only from the members' own projections:

``"dykstra"`` (exact)
    Dykstra's algorithm (Boyle and Dykstra 1986): with increments
    :math:`p_1 = \dots = p_q = 0` and :math:`x = Y`, repeat for each set
    :math:`z = x + p_i,\ x \leftarrow \Pi_i(z),\ p_i \leftarrow z - x`. The iterates
    converge to the projection :math:`\Pi_{\cap_i S_i}(Y)` itself.

``"averaged"`` (the paper's Algorithm 2)
    :math:`x_t = \frac1q\sum_i \Pi_i(x_{t-1})`; converges to *a* point of the
    intersection, in general **not** the projection (design notes; the paper's
    Theorem on linear convergence of alternating projections overstates this:
    see ``docs/errata.md``).

``"alternating"``
    The cyclic variant (von Neumann / POCS): :math:`x \leftarrow \Pi_q(\cdots\Pi_1(x))`;
    also a feasible point, not the projection.

Stopping rule: the change over one sweep (of the iterate and, for Dykstra, of
the increments) and the largest violation of any
member are both at most ``tol * max(1, ||Y||)``; ``steps`` fixes the number of
sweeps instead (Algorithm 2's ``t``). Hitting ``max_iter`` goes through
``on_fail`` ("raise" by default): an unconverged point is never returned as exact.

Examples
--------
>>> import numpy as np
>>> from sosproj.sets import Box, FrobeniusBall, Intersection
>>> S = Intersection([Box(0, 1), FrobeniusBall(1.0)], method="dykstra", tol=1e-10)
>>> X, info = S.project(np.array([2.0, 2.0]), return_info=True)
>>> np.round(X, 6), info.exact
(array([0.707107, 0.707107]), True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from sosproj.errors import InputTypeError, InvalidParameterError
from sosproj.sets.base import ConvexSet, OnFail, ProjectionInfo, SupportResult, handle_nonconvergence
from sosproj.validation import check_choice, check_int, check_positive

METHODS = ("dykstra", "averaged", "alternating")


class Intersection(ConvexSet):
    """The intersection of convex sets, projected by Dykstra (exact) or averaged/alternating projections.

    Parameters
    ----------
    sets : the member :class:`~sosproj.sets.base.ConvexSet` objects (at least one).
    method : ``"dykstra"`` | ``"averaged"`` | ``"alternating"``.
    tol : relative tolerance of the stopping rule.
    max_iter : maximal number of sweeps.

    >>> import numpy as np
    >>> from sosproj.sets import Box, PSDCone
    >>> S = Intersection([PSDCone(), Box(-1, 1)], method="dykstra", tol=1e-10)
    >>> X, info = S.project(np.array([[2.0, 3.0], [3.0, -1.0]]), return_info=True)
    >>> bool(S.contains(X, tol=1e-8)), info.exact
    (True, True)
    """

    def __init__(self, sets: Sequence[ConvexSet], method: str = "dykstra", tol: float = 1e-8,
                 max_iter: int = 10_000) -> None:
        sets = list(sets)
        if not sets:
            raise InvalidParameterError("sets must contain at least one ConvexSet")
        for s in sets:
            if not isinstance(s, ConvexSet):
                raise InputTypeError(f"every member of sets must be a ConvexSet; got {type(s).__name__}")
        self.sets = sets
        self.method = check_choice(method, "method", METHODS)
        self.tol = check_positive(tol, "tol")
        self.max_iter = check_int(max_iter, "max_iter", minimum=1)
        shapes = {s.shape for s in sets if s.shape is not None}
        if len(shapes) > 1:
            raise InvalidParameterError(f"member sets have incompatible shapes {sorted(shapes)}")
        self.shape = shapes.pop() if shapes else None
        self.matrix_set = any(s.matrix_set for s in sets)
        self.bounded = any(s.bounded for s in sets)

    # ------------------------------------------------------------------ project
    def _max_violation(self, X: np.ndarray) -> float:
        return max(s._violation(X) for s in self.sets)

    def _project(self, Y: np.ndarray, *, method: str | None = None, tol: float | None = None,
                 max_iter: int | None = None, steps: int | None = None, on_fail: OnFail = "raise"
                 ) -> tuple[np.ndarray, ProjectionInfo]:
        method = check_choice(method or self.method, "method", METHODS)
        tol = self.tol if tol is None else check_positive(tol, "tol")
        max_iter = self.max_iter if max_iter is None else check_int(max_iter, "max_iter", minimum=1)
        if steps is not None:
            steps = check_int(steps, "steps", minimum=0)
        scale = max(1.0, float(np.linalg.norm(Y)))
        t0 = time.perf_counter()
        x = Y.astype(float, copy=True)
        increments = [np.zeros_like(x) for _ in self.sets] if method == "dykstra" else None
        n_sweeps = steps if steps is not None else max_iter
        change = violation = float("inf")
        it = 0
        for it in range(1, n_sweeps + 1):  # noqa: B007 (used after the loop)
            x_prev = x
            inc_change = 0.0
            if method == "dykstra":
                assert increments is not None
                for i, s in enumerate(self.sets):
                    z = x + increments[i]
                    x, _ = s._project(z)
                    new_inc = z - x
                    inc_change += float(np.linalg.norm(new_inc - increments[i]))
                    increments[i] = new_inc
            elif method == "averaged":
                x = sum(s._project(x)[0] for s in self.sets) / len(self.sets)
            else:
                for s in self.sets:
                    x, _ = s._project(x)
            # Dykstra can leave x unchanged for a sweep while its increments still move,
            # so the increments' change is part of the stopping quantity.
            change = float(np.linalg.norm(x - x_prev)) + inc_change
            if steps is None and change <= tol * scale:
                violation = self._max_violation(x)
                if violation <= tol * scale:
                    break
        else:
            violation = self._max_violation(x)
        if steps is None:
            converged = change <= tol * scale and violation <= tol * scale
        else:
            converged = True  # a fixed number of steps was asked for (Algorithm 2); residuals reported
        info = ProjectionInfo(method, iterations=it, residual=max(change, violation) / scale,
                              converged=converged, exact=(method == "dykstra" and converged and steps is None),
                              time=time.perf_counter() - t0,
                              extra={"sweep_change": change, "max_violation": violation,
                                     "fixed_steps": steps is not None})
        handle_nonconvergence(info, on_fail, f"Intersection projection ({method})", x)
        return x, info

    # ------------------------------------------------------------------ support
    def _support(self, W: np.ndarray, *, solver: str | None = None, tol: float = 1e-10) -> SupportResult:
        from sosproj.sets.reference import cvxpy_support

        return cvxpy_support(self, W, solver=solver, tol=tol)

    def _violation(self, X: np.ndarray) -> float:
        return self._max_violation(X)

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Union of the members' cvxpy constraints."""
        cons: list[Any] = []
        for s in self.sets:
            if not hasattr(s, "cvxpy_constraints"):
                raise InputTypeError(f"{type(s).__name__} has no cvxpy description")
            cons.extend(s.cvxpy_constraints(X))
        return cons

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"Intersection({self.sets!r}, method={self.method!r})"


__all__ = ["Intersection", "METHODS"]

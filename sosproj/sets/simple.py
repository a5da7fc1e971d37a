r"""Sets with one-line projections: Euclidean (Frobenius) balls, boxes, symmetric matrices.

* :class:`FrobeniusBall`: :math:`\{X : \|X - c\|_F \le r\}`, projection by radial scaling,
  support :math:`\langle W, c\rangle + r\|W\|_F`;
* :class:`Box`: :math:`\{X : l \le X \le u\}` entrywise (the paper's clipping step),
  projection by clipping, support :math:`\sum \max(W u, W l)`;
* :class:`SymmetricMatrices`: the subspace :math:`X = X^T`, projection :math:`(Y + Y^T)/2`.

Examples
--------
>>> import numpy as np
>>> from sosproj.sets import Box, FrobeniusBall
>>> FrobeniusBall(1.0).project(np.array([3.0, 4.0]))
array([0.6, 0.8])
>>> float(Box(-1, 1).support(np.array([2.0, -3.0])).value)
5.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult, symmetrize
from sosproj.sets.psd import _matrix_shape
from sosproj.validation import check_array, check_int, check_nonnegative


class FrobeniusBall(ConvexSet):
    r"""The Euclidean ball :math:`\{X : \|X - c\|_F \le r\}` (any shape; ``center`` defaults to 0).

    >>> import numpy as np
    >>> FrobeniusBall(2.0).contains(np.ones(4))
    True
    """

    def __init__(self, radius: float = 1.0, center: Any = None, shape: tuple[int, ...] | None = None
                 ) -> None:
        self.radius = check_nonnegative(radius, "radius")
        self.center = None if center is None else check_array(center, "center")
        if self.center is not None:
            self.shape = self.center.shape
        elif shape is not None:
            self.shape = tuple(check_int(s, "shape entry", minimum=1) for s in shape)

    def _c(self, Y: np.ndarray) -> np.ndarray | float:
        return 0.0 if self.center is None else self.center

    def _project(self, Y: np.ndarray) -> tuple[np.ndarray, ProjectionInfo]:
        D = Y - self._c(Y)
        nrm = float(np.linalg.norm(D))
        X = Y.copy() if nrm <= self.radius else self._c(Y) + D * (self.radius / nrm)
        return np.asarray(X, dtype=float), ProjectionInfo("closed-form")

    def _support(self, W: np.ndarray) -> SupportResult:
        nrm = float(np.linalg.norm(W))
        base = 0.0 if self.center is None else float(np.sum(W * self.center))
        X = (np.zeros_like(W) if nrm == 0 else W * (self.radius / nrm)) + self._c(W)
        return SupportResult(base + self.radius * nrm, np.asarray(X, dtype=float), {"method": "closed-form"})

    def _violation(self, X: np.ndarray) -> float:
        return max(0.0, float(np.linalg.norm(X - self._c(X))) - self.radius)

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference."""
        import cvxpy as cp

        c = 0.0 if self.center is None else self.center
        return [cp.norm(cp.vec(X - c, order="C"), 2) <= self.radius]


class Box(ConvexSet):
    r"""The box :math:`\{X : l \le X \le u\}` entrywise; bounds are scalars or arrays.

    Infinite bounds are allowed (the support is then :math:`+\infty` along them).

    >>> import numpy as np
    >>> Box(0, 1).project(np.array([-1.0, 0.5, 2.0]))
    array([0. , 0.5, 1. ])
    """

    def __init__(self, lower: Any = -1.0, upper: Any = 1.0) -> None:
        lo = np.asarray(lower, dtype=float)
        hi = np.asarray(upper, dtype=float)
        if np.any(np.isnan(lo)) or np.any(np.isnan(hi)):
            raise InvalidParameterError("Box bounds must not be NaN")
        if np.any(lo > hi):
            raise InvalidParameterError("Box needs lower <= upper everywhere; swap the bounds")
        self.lower, self.upper = lo, hi
        shp = np.broadcast_shapes(lo.shape, hi.shape)
        self.shape = shp if shp != () else None
        self.bounded = bool(np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)))

    def _project(self, Y: np.ndarray) -> tuple[np.ndarray, ProjectionInfo]:
        return np.clip(Y, self.lower, self.upper), ProjectionInfo("closed-form")

    def _support(self, W: np.ndarray) -> SupportResult:
        lo = np.broadcast_to(self.lower, W.shape)
        hi = np.broadcast_to(self.upper, W.shape)
        X = np.where(W > 0, hi, np.where(W < 0, lo, np.clip(0.0, lo, hi)))
        with np.errstate(invalid="ignore"):
            terms = np.where(W == 0, 0.0, W * X)
        value = float(np.sum(terms))
        return SupportResult(value, X if np.isfinite(value) else None, {"method": "closed-form"})

    def _violation(self, X: np.ndarray) -> float:
        return float(max(np.max(self.lower - X, initial=0.0), np.max(X - self.upper, initial=0.0), 0.0))

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference."""
        import cvxpy as cp

        flat = cp.reshape(X, (int(np.prod(X.shape)),), order="C")
        cons = []
        for bound, sign in ((self.lower, 1.0), (self.upper, -1.0)):
            b = np.broadcast_to(bound, X.shape).ravel()
            idx = np.flatnonzero(np.isfinite(b))
            if idx.size:
                cons.append(sign * flat[idx] >= sign * b[idx])
        return cons


class SymmetricMatrices(ConvexSet):
    """The linear subspace of symmetric matrices (unbounded).

    >>> import numpy as np
    >>> SymmetricMatrices().project(np.array([[0.0, 2.0], [0.0, 0.0]]))
    array([[0., 1.],
           [1., 0.]])
    """

    matrix_set = True
    bounded = False

    def __init__(self, n: int | None = None) -> None:
        self.shape = _matrix_shape(n)

    def _project(self, Y: np.ndarray) -> tuple[np.ndarray, ProjectionInfo]:
        return symmetrize(Y), ProjectionInfo("closed-form")

    def _support(self, W: np.ndarray) -> SupportResult:
        if np.allclose(symmetrize(W), 0.0, atol=0.0):
            return SupportResult(0.0, np.zeros_like(W), {"method": "closed-form"})
        return SupportResult(float("inf"), None, {"method": "closed-form"})

    def _violation(self, X: np.ndarray) -> float:
        return float(np.max(np.abs(X - X.T)))

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference."""
        return [X == X.T]


__all__ = ["FrobeniusBall", "Box", "SymmetricMatrices"]

r"""Sets of positive semidefinite matrices with closed-form projections.

All three projections go through one symmetric eigendecomposition
:math:`\mathrm{sym}(Y) = U\,\mathrm{diag}(\lambda)\,U^T` (the skew part of ``Y`` is
orthogonal to every symmetric matrix, so it is simply dropped):

* :class:`PSDCone`: :math:`\Pi(Y) = U\,\mathrm{diag}(\lambda_+)\,U^T`;
* :class:`Spectraplex`: :math:`\{X \succeq 0, \operatorname{tr} X \le r\}`: the
  eigenvalues are projected onto :math:`\{\mu \ge 0, \sum\mu \le r\}`;
* :class:`PSDFrobeniusBall`: :math:`\{X \succeq 0, \|X\|_F \le r\}`: for a closed
  convex cone :math:`K` and a ball centred at 0, :math:`\Pi_{K\cap B} = \Pi_B\circ\Pi_K`.

Examples
--------
>>> import numpy as np
>>> from sosproj.sets import PSDCone, Spectraplex
>>> PSDCone().project(np.diag([1.0, -2.0]))
array([[1., 0.],
       [0., 0.]])
>>> float(Spectraplex(1.0).support(np.diag([3.0, -1.0])).value)
3.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.sdp.simplex import project_simplex
from sosproj.sets.base import ConvexSet, ProjectionInfo, SupportResult, symmetrize
from sosproj.validation import check_int, check_nonnegative


def _matrix_shape(n: int | None) -> tuple[int, int] | None:
    """Ambient shape ``(n, n)`` of a matrix set, or ``None`` for any size."""
    if n is None:
        return None
    n = check_int(n, "n", minimum=1)
    return (n, n)


def eigh_sym(Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigendecomposition of the symmetric part of ``Y`` (ascending eigenvalues).

    >>> import numpy as np
    >>> w, U = eigh_sym(np.array([[2.0, 1.0], [-1.0, 3.0]]))
    >>> w
    array([2., 3.])
    """
    return np.linalg.eigh(symmetrize(Y))


def from_eig(w: np.ndarray, U: np.ndarray) -> np.ndarray:
    """Assemble :math:`U \\mathrm{diag}(w) U^T`, exactly symmetric.

    >>> import numpy as np
    >>> from_eig(np.array([1.0, 0.0]), np.eye(2))
    array([[1., 0.],
           [0., 0.]])
    """
    X = (U * w) @ U.T
    return symmetrize(X)


def project_simplex_capped(lam: np.ndarray, radius: float) -> np.ndarray:
    r"""Project ``lam`` onto :math:`\{\mu \ge 0, \sum_i \mu_i \le r\}`.

    If the clipped vector already sums to at most ``r`` it is the answer;
    otherwise the projection lies on :math:`\sum\mu = r` and is
    :math:`(\lambda - \tau)_+` with the threshold :math:`\tau` found by sorting
    (Held, Wolfe and Crowder 1974).

    >>> import numpy as np
    >>> project_simplex_capped(np.array([2.0, 1.0, -1.0]), 1.0)
    array([1., 0., 0.])
    """
    pos = np.maximum(lam, 0.0)
    if pos.sum() <= radius:
        return pos
    return project_simplex(lam, radius)


class PSDCone(ConvexSet):
    """The cone of symmetric positive semidefinite matrices (unbounded).

    ``support(W)`` is 0 when :math:`\\mathrm{sym}(W) \\preceq 0` and :math:`+\\infty` otherwise.

    >>> import numpy as np
    >>> PSDCone().contains(np.eye(3))
    True
    """

    matrix_set = True
    bounded = False

    def __init__(self, n: int | None = None) -> None:
        self.shape = _matrix_shape(n)

    def _project(self, Y: np.ndarray) -> tuple[np.ndarray, ProjectionInfo]:
        w, U = eigh_sym(Y)
        return from_eig(np.maximum(w, 0.0), U), ProjectionInfo("closed-form", iterations=1,
                                                               extra={"eigendecompositions": 1})

    def _support(self, W: np.ndarray) -> SupportResult:
        lmax = float(np.linalg.eigvalsh(symmetrize(W))[-1])
        if lmax <= 0:
            return SupportResult(0.0, np.zeros_like(W), {"method": "closed-form"})
        return SupportResult(float("inf"), None, {"method": "closed-form"})

    def _violation(self, X: np.ndarray) -> float:
        asym = float(np.max(np.abs(X - X.T)))
        return max(asym, max(0.0, -float(np.linalg.eigvalsh(symmetrize(X))[0])))

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference (``X`` symmetric)."""
        return [X >> 0]


class Spectraplex(ConvexSet):
    r"""The set :math:`\{X \succeq 0,\ \operatorname{tr} X \le r\}` (``equality=True``: :math:`= r`).

    Support: :math:`h(W) = r\max(\lambda_{\max}(\mathrm{sym} W), 0)` (or
    :math:`r\lambda_{\max}` with equality), attained at :math:`r\,vv^T`.

    >>> import numpy as np
    >>> S = Spectraplex(2.0)
    >>> float(np.trace(S.project(5 * np.eye(2))))
    2.0
    """

    matrix_set = True

    def __init__(self, radius: float = 1.0, n: int | None = None, equality: bool = False) -> None:
        self.radius = check_nonnegative(radius, "radius")
        self.equality = bool(equality)
        self.shape = _matrix_shape(n)

    def _project(self, Y: np.ndarray) -> tuple[np.ndarray, ProjectionInfo]:
        w, U = eigh_sym(Y)
        if self.equality:
            mu = project_simplex(w, self.radius)
        else:
            mu = project_simplex_capped(w, self.radius)
        return from_eig(mu, U), ProjectionInfo("closed-form", iterations=1,
                                               extra={"eigendecompositions": 1})

    def _support(self, W: np.ndarray) -> SupportResult:
        w, U = eigh_sym(W)
        lmax, v = float(w[-1]), U[:, -1]
        if lmax <= 0 and not self.equality:
            return SupportResult(0.0, np.zeros_like(W), {"method": "closed-form"})
        return SupportResult(self.radius * lmax, self.radius * np.outer(v, v), {"method": "closed-form"})

    def _violation(self, X: np.ndarray) -> float:
        w = np.linalg.eigvalsh(symmetrize(X))
        tr = float(np.trace(X))
        trace_violation = abs(tr - self.radius) if self.equality else max(0.0, tr - self.radius)
        return max(float(np.max(np.abs(X - X.T))), max(0.0, -float(w[0])), trace_violation)

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference."""
        import cvxpy as cp

        tr = cp.trace(X)
        return [X >> 0, tr == self.radius if self.equality else tr <= self.radius]


class PSDFrobeniusBall(ConvexSet):
    r"""The set :math:`\{X \succeq 0,\ \|X\|_F \le r\}` (the paper's :math:`S_1` in Algorithm 4, errata fixed).

    Projection: clip negative eigenvalues, then scale into the ball.
    Support: :math:`r\,\|\Pi_{PSD}(\mathrm{sym} W)\|_F`.

    >>> import numpy as np
    >>> X = PSDFrobeniusBall(1.0).project(3 * np.eye(2))
    >>> round(float(np.linalg.norm(X)), 12)
    1.0
    """

    matrix_set = True

    def __init__(self, radius: float = 1.0, n: int | None = None) -> None:
        self.radius = check_nonnegative(radius, "radius")
        self.shape = _matrix_shape(n)

    def _project(self, Y: np.ndarray) -> tuple[np.ndarray, ProjectionInfo]:
        w, U = eigh_sym(Y)
        mu = np.maximum(w, 0.0)
        nrm = float(np.linalg.norm(mu))
        if nrm > self.radius:
            mu = mu * (self.radius / nrm)
        return from_eig(mu, U), ProjectionInfo("closed-form", iterations=1,
                                               extra={"eigendecompositions": 1})

    def _support(self, W: np.ndarray) -> SupportResult:
        w, U = eigh_sym(W)
        mu = np.maximum(w, 0.0)
        nrm = float(np.linalg.norm(mu))
        if nrm == 0:
            return SupportResult(0.0, np.zeros_like(W), {"method": "closed-form"})
        return SupportResult(self.radius * nrm, from_eig(mu * (self.radius / nrm), U),
                             {"method": "closed-form"})

    def _violation(self, X: np.ndarray) -> float:
        w = np.linalg.eigvalsh(symmetrize(X))
        return max(float(np.max(np.abs(X - X.T))), max(0.0, -float(w[0])),
                   max(0.0, float(np.linalg.norm(X)) - self.radius))

    def cvxpy_constraints(self, X: Any) -> list[Any]:
        """Constraints describing the set for the cvxpy reference."""
        import cvxpy as cp

        return [X >> 0, cp.norm(X, "fro") <= self.radius]


__all__ = ["PSDCone", "Spectraplex", "PSDFrobeniusBall", "project_simplex_capped", "eigh_sym", "from_eig"]

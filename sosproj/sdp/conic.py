r"""A solver-neutral conic program and the scaled ``svec`` conventions.

Every SDP that sosproj solves is first compiled into one :class:`ConicProblem`

.. math::

    \min_x \ \tfrac12 x^\top P x + q^\top x + c_0
    \quad\text{s.t.}\quad A x + s = b,\ \ s \in \mathcal K,

with sparse ``P`` (symmetric positive semidefinite), sparse ``A`` and the cone
:math:`\mathcal K = \{0\}^{z} \times \mathbb R_+^{l} \times \mathrm{SOC}_{q_1}
\times\cdots\times \mathcal S_+^{d_1}\times\cdots` stored **in that row order**
(:class:`Cones`). The dual is

.. math::

    \max_{x, y}\ -\tfrac12 x^\top P x - b^\top y + c_0
    \quad\text{s.t.}\quad P x + A^\top y + q = 0,\ \ y \in \mathcal K^*.

The cones, the scaled ``svec`` of PSD blocks (SCS's order, off-diagonal entries
times :math:`\sqrt 2`), row slicing and cone projections live in
:mod:`sosproj.sdp.cones`; the relative residuals every solver reports are
computed by :func:`relative_residuals`, here, once.

Examples of ``svec``/``smat`` and the cone blocks are in :mod:`sosproj.sdp.cones`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import InvalidInputError
from sosproj.sdp.cones import (
    SQRT2,
    Cones,
    SvecOrder,
    cone_violation,
    project_dual_cone,
    psd_min_eigenvalues,
    smat,
    svec,
    svec_dim,
    svec_indices,
    svec_operator,
    svec_permutation,
)


def relative_residuals(x: np.ndarray, y: np.ndarray, s: np.ndarray, *, Ax: np.ndarray, Aty: np.ndarray,
                       Px: np.ndarray, q: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    r"""Relative primal residual, dual residual and duality gap (SCS's definitions, infinity norms).

    ``primal = ||Ax + s - b|| / (1 + max(||Ax||, ||s||, ||b||))``,
    ``dual = ||Px + A'y + q|| / (1 + max(||Px||, ||A'y||, ||q||))``,
    ``gap = |x'Px + q'x + b'y| / (1 + max(|x'Px|, |q'x|, |b'y|))``. The products
    ``Ax``, ``A'y`` and ``Px`` are passed in, so a solver that already has them
    (the ADMM) does not recompute them.

    >>> import numpy as np          # min x s.t. x >= 1 (A = -1, b = -1) at x = 1, y = 1, s = 0
    >>> one = np.array([1.0])
    >>> relative_residuals(one, one, 0 * one, Ax=-one, Aty=-one, Px=0 * one, q=one, b=-one)
    (0.0, 0.0, 0.0)
    """
    def nrm(v: np.ndarray) -> float:
        return float(np.linalg.norm(v, np.inf)) if v.size else 0.0

    pres = nrm(Ax + s - b) / (1.0 + max(nrm(Ax), nrm(s), nrm(b)))
    dres = nrm(Px + Aty + q) / (1.0 + max(nrm(Px), nrm(Aty), nrm(q)))
    xPx, qx, by = float(x @ Px), float(q @ x), float(b @ y)
    gap = abs(xPx + qx + by) / (1.0 + max(abs(xPx), abs(qx), abs(by)))
    return pres, dres, gap


# ---------------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class ConicProblem:
    r"""``min 1/2 x'Px + q'x + offset  s.t.  A x + s = b, s in cones`` (see module docs).

    Parameters
    ----------
    P : sparse symmetric PSD ``(n, n)`` or ``None`` (linear objective).
    q : ``(n,)`` linear cost.
    A : sparse ``(m, n)`` constraint matrix; rows follow ``cones``.
    b : ``(m,)`` right-hand side.
    cones : :class:`Cones` with ``cones.dim == m``.
    offset : constant added to the objective (e.g. :math:`\|Y\|_F^2` for projections).
    P_factor : optional sparse ``F`` with ``P = F^T F`` (lets the cvxpy reference use a
        sum of squares instead of a quadratic form).
    meta : free-form, data-independent description (names, sizes).

    >>> import numpy as np, scipy.sparse as sp
    >>> # min x  s.t.  x >= 1   written as  -x + s = -1, s >= 0
    >>> prob = ConicProblem(None, np.array([1.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]),
    ...                     Cones(nonneg=1))
    >>> prob.n, prob.m
    (1, 1)
    """

    P: sp.csc_matrix | None
    q: np.ndarray
    A: sp.csc_matrix
    b: np.ndarray
    cones: Cones
    offset: float = 0.0
    P_factor: sp.csr_matrix | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        q = np.asarray(self.q, dtype=float).ravel()
        b = np.asarray(self.b, dtype=float).ravel()
        if not sp.issparse(self.A):
            raise InvalidInputError("A must be a scipy.sparse matrix; wrap it with scipy.sparse.csc_matrix")
        A = sp.csc_matrix(self.A, dtype=float)
        m, n = A.shape
        if q.shape != (n,):
            raise InvalidInputError(f"q must have length {n} (columns of A); got {q.shape}")
        if b.shape != (m,):
            raise InvalidInputError(f"b must have length {m} (rows of A); got {b.shape}")
        if self.cones.dim != m:
            raise InvalidInputError(f"cones cover {self.cones.dim} rows but A has {m}; fix the cone sizes")
        P = self.P
        if P is not None:
            if not sp.issparse(P):
                raise InvalidInputError("P must be a scipy.sparse matrix or None")
            P = sp.csc_matrix(P, dtype=float)
            if P.shape != (n, n):
                raise InvalidInputError(f"P must have shape ({n}, {n}); got {P.shape}")
            if P.nnz == 0:
                P = None
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(b)) and np.all(np.isfinite(A.data))):
            raise InvalidInputError("q, b and A must be finite")
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "offset", float(self.offset))

    @property
    def n(self) -> int:
        """Number of variables."""
        return self.A.shape[1]

    @property
    def m(self) -> int:
        """Number of constraint rows."""
        return self.A.shape[0]

    def with_data(self, *, q: np.ndarray | None = None, b: np.ndarray | None = None,
                  offset: float | None = None) -> ConicProblem:
        """A copy with a new ``q``, ``b`` or ``offset`` (same sparse data, not copied)."""
        return ConicProblem(self.P, self.q if q is None else q, self.A, self.b if b is None else b,
                            self.cones, self.offset if offset is None else offset, self.P_factor,
                            dict(self.meta))

    def objective(self, x: np.ndarray) -> float:
        """Primal objective ``1/2 x'Px + q'x + offset``."""
        val = float(self.q @ x) + self.offset
        if self.P is not None:
            val += 0.5 * float(x @ (self.P @ x))
        return val

    def residuals(self, x: np.ndarray, y: np.ndarray, s: np.ndarray, *,
                  cone_budget: tuple[float, float] | None = None) -> dict[str, float]:
        r"""Relative primal / dual residuals and duality gap (SCS's definitions, infinity norms).

        ``primal = ||Ax + s - b|| / (1 + max(||Ax||, ||s||, ||b||))``,
        ``dual = ||Px + A'y + q|| / (1 + max(||Px||, ||A'y||, ||q||))``,
        ``gap = |x'Px + q'x + b'y| / (1 + max(|x'Px|, |q'x|, |b'y|))``
        (:func:`relative_residuals`); plus the Euclidean cone violations of ``s``
        (primal) and ``y`` (dual). ``cone_budget = (primal, dual)``: thresholds of a pass/fail test on the two
        violations; large PSD blocks are then bounded by a Cholesky factorization where that shows them
        within the threshold (:func:`~sosproj.sdp.cones.cone_violation`'s ``budget``: upper bounds there,
        exact distances elsewhere).
        """
        Px = self.P @ x if self.P is not None else np.zeros(self.n)
        pres, dres, gap = relative_residuals(x, y, s, Ax=self.A @ x, Aty=self.A.T @ y, Px=Px,
                                             q=self.q, b=self.b)
        bp, bd = cone_budget if cone_budget is not None else (None, None)
        return {"primal": pres, "dual": dres, "gap": gap,
                "cone_primal": cone_violation(s, self.cones, budget=bp),
                "cone_dual": cone_violation(y, self.cones, dual=True, budget=bd)}

    def lower_bound(self, x: np.ndarray, y: np.ndarray, x_bound: float) -> dict[str, float]:
        r"""A lower bound on the optimal value from any point ``x`` and any dual vector ``y``.

        With :math:`y_+ = \Pi_{\mathcal K^*}(y)` and :math:`r = Px + q + A^\top y_+`,
        convexity gives, for every feasible :math:`x'` (:math:`Ax' + s' = b`,
        :math:`s'\in\mathcal K`, so :math:`y_+^\top s' \ge 0`):

        .. math::

            f(x') \ge f(x) + (Px+q)^\top(x'-x)
                 \ge f(x) - y_+^\top(b - Ax) - \|r\|_2\,(\|x'\|_2 + \|x\|_2),

        and ``x_bound`` must bound :math:`\|x'\|_2` over the feasible set. The bound
        is exact at a primal-dual optimal pair (then ``r = 0`` and complementarity
        makes the middle term vanish).

        >>> import numpy as np, scipy.sparse as sp
        >>> prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([0.0]), sp.csc_matrix([[-1.0]]),
        ...                     np.array([-1.0]), Cones(nonneg=1))      # min x^2 s.t. x >= 1
        >>> lb = prob.lower_bound(np.array([1.0]), np.array([2.0]), x_bound=10.0)
        >>> round(lb["lower_bound"], 12), round(prob.objective(np.array([1.0])), 12)
        (1.0, 1.0)
        """
        yp = project_dual_cone(y, self.cones)
        r = self.q + self.A.T @ yp
        if self.P is not None:
            r = r + self.P @ x
        fx = self.objective(x)
        comp = float(yp @ (self.b - self.A @ x))
        rn = float(np.linalg.norm(r))
        slack = rn * (float(x_bound) + float(np.linalg.norm(x)))
        lb = fx - comp - slack
        return {"lower_bound": lb, "objective": fx, "gap": fx - lb,
                "complementarity": comp, "dual_residual_norm": rn, "x_bound": float(x_bound)}

    def describe(self) -> dict[str, Any]:
        """Sizes (no data values): variables, rows, nonzeros, cones."""
        return {"n": self.n, "m": self.m, "nnz_A": int(self.A.nnz),
                "nnz_P": int(self.P.nnz) if self.P is not None else 0,
                "cones": self.cones.as_dict(), **self.meta}


__all__ = ["ConicProblem", "relative_residuals",
           # re-exported from sosproj.sdp.cones (their single home)
           "Cones", "svec", "smat", "svec_dim", "svec_indices", "svec_operator", "svec_permutation",
           "project_dual_cone", "cone_violation", "psd_min_eigenvalues", "SvecOrder", "SQRT2"]

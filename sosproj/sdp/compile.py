r"""Compile projections, least squares and support functions over pseudo-moments.

A :class:`~sosproj.poly.MomentRelaxation` ``R`` describes its feasible set of
pseudo-moment vectors :math:`y\in\mathbb R^N` by

* PSD blocks ``R.psd_blocks`` (moment and localizing matrices) with
  :math:`\mathrm{vec}(M_j(y)) = A_j y` (row-major), and
* equalities ``R.equalities = (A_eq, b_eq)`` including :math:`y_0 = 1`.

:func:`compile_constraints` turns them, once per relaxation, into the rows
``A x + s = b`` of a :class:`~sosproj.sdp.conic.ConicProblem`: a zero cone for
the equalities and, for each block, ``s_j = svec(M_j(y))`` in a PSD cone (so
``A = -S_d A_j`` and ``b = 0`` with :func:`~sosproj.sdp.cones.svec_operator`
``S_d``). Objectives are then cheap to attach:

* **generalized least squares** (:func:`compile_least_squares`):
  :math:`\min_y \sum_i w_i((By)_i - c_i)^2` for any sparse measurement map ``B``,
  i.e. :math:`P = 2B^\top W B`, :math:`q = -2B^\top W c`, offset :math:`c^\top W c`;
* **tensor projection** (:func:`compile_projection`), the special case ``B`` = the
  readout ``R.readout(k).matrix`` and ``w`` = the orbit sizes: for a full (not
  symmetric) tensor ``Y``,
  :math:`\|T(y) - Y\|_F^2 = \sum_o w_o (r_o(y) - \bar Y_o)^2 + \|Y\|_F^2 - \sum_o w_o\bar Y_o^2`
  with :math:`\bar Y_o` the average of ``Y`` over orbit ``o``; the offset is set so the
  objective *is* the squared distance;
* **support function** (:func:`compile_support`):
  :math:`\max_y \langle W, T(y)\rangle = \max_y \sum_o w_o \bar W_o r_o(y)` (a linear cost).

Memory is checked (:func:`~sosproj.validation.check_memory`) with the solver's
KKT estimate before the conic data are built.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.sdp.backends import estimate_memory
from sosproj.sdp.cones import Cones, svec_dim, svec_operator
from sosproj.sdp.conic import ConicProblem
from sosproj.validation import check_array, check_memory


@dataclass(frozen=True, eq=False)
class ConstraintData:
    """Constraint rows of a relaxation: ``A y + s = b``, ``s`` in ``cones`` (built once)."""

    A: sp.csc_matrix
    b: np.ndarray
    cones: Cones
    n_moments: int
    block_names: tuple[str, ...]
    moment_block: int


_CONSTRAINT_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _block_parts(R: Any) -> tuple[list[Any], sp.csr_matrix, np.ndarray, int]:
    blocks = list(R.psd_blocks)
    A_eq, b_eq = R.equalities
    A_eq = sp.csr_matrix(A_eq, dtype=float)
    b_eq = np.asarray(b_eq, dtype=float).ravel()
    N = int(R.n_moments)
    if A_eq.shape[1] != N or A_eq.shape[0] != b_eq.shape[0]:
        raise InvalidInputError("relaxation equalities have inconsistent shapes; rebuild the relaxation")
    return blocks, A_eq, b_eq, N


def estimate_sizes(n_moments: int, block_orders: list[int] | tuple[int, ...], nnz_blocks: int,
                   n_equalities: int = 1, nnz_equalities: int = 1, nnz_P: int = 0,
                   solver: str = "scs") -> int:
    """Estimated solver workspace bytes of a relaxation from its sizes alone (nothing built).

    ``nnz_blocks`` is the number of stored nonzeros of all block maps (full
    ``d x d`` rows); the svec keeps about half. Use it with
    ``MomentRelaxation.estimate(system, degree)`` to refuse a problem before the
    relaxation itself is built.

    >>> estimate_sizes(15, [6], 36, solver="scs") > 0
    True
    """
    cones = Cones(zero=int(n_equalities), psd=tuple(int(d) for d in block_orders))
    nnz_A = int(nnz_blocks) // 2 + sum(int(d) for d in block_orders) + int(nnz_equalities)
    return estimate_memory(int(n_moments), cones, nnz_A, int(nnz_P), solver)


def check_relaxation_memory(R: Any, solver: str, nnz_P: int = 0, what: str = "the SDP",
                            limit_bytes: float | None = None) -> int:
    """Refuse (``ResourceLimitError`` with the estimate) a solve that would not fit; return the estimate."""
    blocks, A_eq, _, N = _block_parts(R)
    est = estimate_sizes(N, [int(b.order) for b in blocks], sum(int(b.A.nnz) for b in blocks),
                         A_eq.shape[0], int(A_eq.nnz), nnz_P, solver)
    orders = [int(b.order) for b in blocks]
    check_memory(est, f"{what} over {N} pseudo-moments with PSD blocks of orders {orders} "
                      f"(solver {solver!r})", limit_bytes=limit_bytes)
    return est


def compile_constraints(R: Any) -> ConstraintData:
    """The conic constraint rows of relaxation ``R`` (cached per relaxation object).

    Zero cone: ``A_eq y = b_eq``. PSD cone per block ``j``: ``s_j = svec(M_j(y))``,
    i.e. rows ``-S_d A_j`` with ``b = 0`` (SCS svec order); an order-1 block is a
    nonnegative-cone row. The moment matrix is the first block (``moment_block = 0``).

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> cd = compile_constraints(MomentRelaxation(unit_ball(2), 2))
    >>> cd.n_moments, cd.moment_block
    (6, 0)
    """
    try:
        cached = _CONSTRAINT_CACHE.get(R)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    blocks, A_eq, b_eq, N = _block_parts(R)
    nonneg_rows = []
    psd_rows = []
    orders = []
    names = []
    for idx, blk in enumerate(blocks):
        d = int(blk.order)
        Ab = sp.csr_matrix(blk.A, dtype=float)
        if Ab.shape != (d * d, N):
            raise InvalidInputError(f"PSD block {idx} map must have shape ({d * d}, {N}); rebuild the relaxation")
        names.append(str(getattr(blk, "name", f"block{idx}")))
        if d == 1:  # a scalar block g(y) >= 0 is a nonnegative-cone row
            nonneg_rows.append(-Ab)
        else:
            psd_rows.append(-(svec_operator(d) @ Ab))
            orders.append(d)
    A = sp.vstack([A_eq, *nonneg_rows, *psd_rows], format="csc")
    A.eliminate_zeros()
    n_nonneg = len(nonneg_rows)
    b = np.concatenate([b_eq, np.zeros(n_nonneg + sum(svec_dim(d) for d in orders))])
    data = ConstraintData(A, b, Cones(zero=A_eq.shape[0], nonneg=n_nonneg, psd=tuple(orders)), N,
                          tuple(names), 0)
    try:
        _CONSTRAINT_CACHE[R] = data
    except TypeError:
        pass
    return data


def _weights(weights: Any, m: int) -> np.ndarray:
    if weights is None:
        return np.ones(m)
    w = check_array(weights, "weights", ndim=1)
    if w.shape != (m,):
        raise InvalidInputError(f"weights must have one entry per measurement ({m}); got shape {w.shape}")
    if np.any(w <= 0):
        raise InvalidParameterError("weights must be > 0; drop measurements with zero weight from B instead")
    return w


def least_squares_objective(B: sp.spmatrix, weights: np.ndarray) -> tuple[sp.csc_matrix, sp.csr_matrix]:
    r"""``(P, F)`` with :math:`P = 2B^\top W B = F^\top F` and :math:`F = \sqrt{2W}\,B`."""
    F = sp.diags(np.sqrt(2.0 * weights)) @ sp.csr_matrix(B, dtype=float)
    P = (F.T @ F).tocsc()
    P.sum_duplicates()
    return P, sp.csr_matrix(F)


def least_squares_cost(B: sp.spmatrix, weights: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, float]:
    r"""Linear cost :math:`q = -2B^\top W c` and offset :math:`c^\top W c`."""
    return -2.0 * (B.T @ (weights * c)), float(np.sum(weights * c * c))


def _nnz_P_bound(B: sp.csr_matrix) -> int:
    counts = np.diff(sp.csr_matrix(B).indptr).astype(np.int64)
    return int(min(np.sum(counts * counts), B.shape[1] ** 2))


def compile_least_squares(R: Any, B: Any, c: Any, weights: Any = None, *, solver: str = "scs",
                          limit_bytes: float | None = None) -> ConicProblem:
    r"""``min_y sum_i w_i ((B y)_i - c_i)^2`` over the pseudo-moments of ``R`` as a :class:`ConicProblem`.

    ``B`` is any sparse ``(m, N)`` measurement map (``N = R.n_moments``), ``c`` the
    ``(m,)`` measurements, ``weights`` positive (default 1; use ``1/sigma_i^2`` for
    measurements with different noise scales). The objective value of the
    compiled problem is the weighted squared residual itself.

    >>> import numpy as np
    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> from sosproj.sdp import solve
    >>> R = MomentRelaxation(unit_ball(2), 2)
    >>> B = R.readout(1).matrix                      # measure E[x_1], E[x_2]
    >>> res = solve(compile_least_squares(R, B, np.array([3.0, 4.0])), tol=1e-9)
    >>> np.round(B @ res.x, 4)                        # the closest point of the unit disc
    array([0.6, 0.8])
    """
    N = int(R.n_moments)
    if not sp.issparse(B):
        B = sp.csr_matrix(check_array(B, "B", ndim=2))
    B = sp.csr_matrix(B, dtype=float)
    if B.shape[1] != N:
        raise InvalidInputError(f"B must have {N} columns (one per pseudo-moment); got shape {B.shape}")
    c = check_array(c, "c", ndim=1)
    if c.shape != (B.shape[0],):
        raise InvalidInputError(f"c must have length {B.shape[0]} (rows of B); got shape {c.shape}")
    w = _weights(weights, B.shape[0])
    check_relaxation_memory(R, solver, _nnz_P_bound(B), "the least-squares projection", limit_bytes)
    con = compile_constraints(R)
    P, F = least_squares_objective(B, w)
    q, off = least_squares_cost(B, w, c)
    return ConicProblem(P, q, con.A, con.b, con.cones, off, F,
                        {"kind": "least_squares", "n_measurements": int(B.shape[0]), "n_moments": N})


def _tensor_data(R: Any, k: int, Y: Any, name: str) -> tuple[Any, np.ndarray, np.ndarray]:
    ro = R.readout(k)
    shape = np.shape(ro.to_tensor(np.zeros(ro.matrix.shape[0])))
    Y = check_array(Y, name, shape=shape)
    return ro, Y, np.asarray(ro.from_tensor(Y), dtype=float)


def compile_projection(R: Any, k: int, Y: Any, *, solver: str = "scs",
                       limit_bytes: float | None = None) -> ConicProblem:
    r"""Frobenius projection of a full order-``k`` tensor ``Y`` onto ``{T(y): y feasible for R}``.

    Orbit-weighted least squares (module docs) with the readout matrix as ``B``;
    the compiled objective equals :math:`\|T(y) - Y\|_F^2`.

    >>> import numpy as np
    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> from sosproj.sdp import solve
    >>> R = MomentRelaxation(unit_ball(2), 2)
    >>> res = solve(compile_projection(R, 2, np.diag([2.0, 0.0])), tol=1e-9)
    >>> round(res.objective, 5)                       # ||diag(2, 0) - diag(1, 0)||^2
    1.0
    """
    ro, Y, Ybar = _tensor_data(R, k, Y, "Y")
    w = np.asarray(ro.weights, dtype=float)
    prob = compile_least_squares(R, ro.matrix, Ybar, w, solver=solver, limit_bytes=limit_bytes)
    return prob.with_data(offset=float(np.sum(Y * Y)))


def compile_linear(R: Any, cost: Any, *, solver: str = "scs", limit_bytes: float | None = None) -> ConicProblem:
    """``min_y cost . y`` over the pseudo-moments of ``R`` (no quadratic term).

    >>> import numpy as np
    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> from sosproj.sdp import solve
    >>> R = MomentRelaxation(unit_ball(2), 2)
    >>> cost = np.zeros(R.n_moments); cost[0] = 2.0       # minimise 2 * y_0 = 2
    >>> round(solve(compile_linear(R, cost), tol=1e-8).objective, 6)
    2.0
    """
    N = int(R.n_moments)
    cost = check_array(cost, "cost", shape=(N,))
    check_relaxation_memory(R, solver, 0, "the linear SDP", limit_bytes)
    con = compile_constraints(R)
    return ConicProblem(None, cost, con.A, con.b, con.cones, 0.0, None, {"kind": "linear", "n_moments": N})


def support_cost(R: Any, k: int, W: Any) -> np.ndarray:
    r"""Cost vector ``-R^T (w * Wbar)`` whose minimum is minus the support value at ``W``."""
    ro, _, Wbar = _tensor_data(R, k, W, "W")
    w = np.asarray(ro.weights, dtype=float)
    return -np.asarray(ro.matrix.T @ (w * Wbar)).ravel()


def compile_support(R: Any, k: int, W: Any, *, solver: str = "scs",
                    limit_bytes: float | None = None) -> ConicProblem:
    r"""``max_y <W, T(y)>`` as ``min_y -(R^T (w * Wbar)) . y`` (the optimal value is minus the support).

    Degree-2 unit ball, ``k = 2``: the support is :math:`\max(\lambda_{\max}(\mathrm{sym}\,W), 0)`.

    >>> import numpy as np
    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> from sosproj.sdp import solve
    >>> R = MomentRelaxation(unit_ball(2), 2)
    >>> res = solve(compile_support(R, 2, np.diag([1.0, -1.0])), tol=1e-8)
    >>> round(-res.objective, 6)
    1.0
    """
    prob = compile_linear(R, support_cost(R, k, W), solver=solver, limit_bytes=limit_bytes)
    return ConicProblem(prob.P, prob.q, prob.A, prob.b, prob.cones, 0.0, None, {"kind": "support", "k": int(k),
                                                                              "n_moments": prob.n})


__all__ = ["ConstraintData", "compile_constraints", "compile_least_squares", "compile_projection",
           "compile_linear", "compile_support", "support_cost", "estimate_sizes", "check_relaxation_memory",
           "least_squares_objective", "least_squares_cost"]

r"""Least squares over the exact marginal polytope by FISTA and column generation (small ``n``).

Since issue 14's session 36 this is also the binary release's default reconstruction for domains of at most 16
attributes (:func:`sosproj.mechanisms.marginals_pipeline._joint`, ``reconstruction="joint"``), solved by
:func:`polytope_fourier_least_squares` with ``method="column-generation"``.

``p`` is a distribution over the ``2^n`` points of the Boolean cube and ``M_T p``
its marginal table on ``T``; :func:`polytope_least_squares` solves

.. math::  \min_{p \in \Delta_{2^n}} \sum_T w_T \lVert M_T p - c_T \rVert^2

with FISTA (Beck and Teboulle 2009) and adaptive restart (O'Donoghue and Candes
2015), projecting onto the simplex with the sort-based rule of Duchi et al. (2008).
The objective is the diagonal Fourier form of
:func:`sosproj.data.contingency.fourier_form`, so each gradient costs two
Walsh-Hadamard transforms.  The Frank-Wolfe gap bounds the suboptimality and is
the stopping rule.  It is what Private-PGM fits when its model is the full domain,
and the set that the cube relaxations of
:mod:`sosproj.sdp.cube_tables_admm` contain (they tighten to it as the degree grows).

Examples
--------
>>> import numpy as np
>>> from sosproj.data.contingency import TableLayout, contingency_tables
>>> lay = TableLayout.all_k_way(3, 2)
>>> D = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 0]])
>>> fit = polytope_least_squares(contingency_tables(D, lay, flat=True) / 4, lay)
>>> bool(fit.converged)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.data.contingency import (
    SubsetIndex,
    TableLayout,
    fourier_form,
    subset_from_fourier,
    walsh_hadamard,
)
from sosproj.errors import InvalidParameterError
from sosproj.policy import apply_on_fail, check_on_fail, check_options
from sosproj.sdp.simplex import project_simplex
from sosproj.validation import check_int, check_memory, check_positive

#: keyword options accepted by :func:`polytope_least_squares`
OPTIONS = ("tol", "max_iter", "method")


@dataclass(frozen=True)
class PolytopeFit:
    """Result of :func:`polytope_least_squares`.

    ``distribution`` over the ``2^n`` points (index bit ``i`` = attribute ``i``),
    ``fourier`` its Fourier moments on ``index`` positions, ``moments`` its subset
    moments (fractions), ``objective``, ``gap`` (Frank-Wolfe duality gap: an upper
    bound on ``objective - optimum``), ``iterations``, ``converged``.
    """

    distribution: np.ndarray
    fourier: np.ndarray
    moments: np.ndarray
    objective: float
    gap: float
    iterations: int
    converged: bool


def polytope_least_squares(cells: np.ndarray, layout: TableLayout, *, weights: np.ndarray | None = None,
                           index: SubsetIndex | None = None, on_fail: str = "return",
                           **options: Any) -> PolytopeFit:
    r"""Least squares over the exact marginal polytope: ``min_p sum_T w_T ||M_T p - c_T||^2``, ``p`` in the simplex.

    ``p`` is a distribution over all ``2^n`` points and ``M_T p`` its marginal
    table on ``T`` (fractions) -- what Private-PGM fits when its model is the full
    domain.  Solved by FISTA with adaptive restart; the gradient is applied in
    the Fourier domain (:func:`fourier_form`, two Walsh-Hadamard transforms per
    step).  Stops when the Frank-Wolfe gap ``<grad, p> - min grad`` (an upper
    bound on the suboptimality) is below ``tol * max(1, objective)``.
    Exponential in ``n``: refused past the memory budget.

    Options ``tol`` (default ``1e-10``) and ``max_iter`` (default 20000); unknown
    options are refused (:func:`sosproj.policy.check_options`).  ``on_fail``
    (:mod:`sosproj.policy`; default ``"return"``: read ``converged``) applies when
    ``max_iter`` is reached first.

    >>> from sosproj.data.contingency import contingency_tables
    >>> lay = TableLayout.all_k_way(3, 2)
    >>> D = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 0]])
    >>> c = contingency_tables(D, lay, flat=True) / 4
    >>> fit = polytope_least_squares(c, lay)
    >>> bool(fit.objective < 1e-9 and fit.converged)
    True
    """
    check_options(options, OPTIONS, "polytope_least_squares")
    n = layout.n
    if index is None:
        index = SubsetIndex(n, layout.max_size) if n <= MAX_N else None
    if index is None:
        raise InvalidParameterError(f"the exact polytope has 2^n cells; n must be <= {MAX_N} (use the SoS relaxation)")
    ff = fourier_form(cells, layout, index, weights)
    return polytope_fourier_least_squares(ff.a, ff.g, index, const=ff.const, on_fail=on_fail, **options)


#: the largest number of binary attributes the exact polytope is built for (``2^n`` cells)
MAX_N = 30

#: the Frank-Wolfe gap (a gradient at the iterate: two more transforms) is evaluated every this many FISTA steps
GAP_EVERY = 10


def polytope_fourier_least_squares(a: np.ndarray, g: np.ndarray, index: SubsetIndex, *, const: float = 0.0,
                                   on_fail: str = "return", **options: Any) -> PolytopeFit:
    r"""Least squares over the exact marginal polytope written in Fourier moments.

    .. math::  \min_{p \in \Delta_{2^n}} \sum_U a_U \bigl(\hat p_U - g_U\bigr)^2 + \mathrm{const},
       \qquad \hat p_U = \sum_x (-1)^{|U \cap x|} p_x,

    over the subset positions ``U`` of ``index`` (``a_U >= 0``; ``a_U = 0``: ``U`` unmeasured). This is the form
    :func:`polytope_least_squares` reduces to (:func:`~sosproj.data.contingency.fourier_form`) and the one in which
    the marginal pipeline's binary measurement metric is diagonal
    (:func:`sosproj.mechanisms.marginals_pipeline.binary_fourier_form`). FISTA (Beck and Teboulle 2009) with the
    gradient restart of O'Donoghue and Candes (2015) and the step ``1 / L``, ``L = 2^{n+1} max_U a_U`` (the
    Walsh-Hadamard rows are orthogonal with squared norm ``2^n``: ``L`` is the gradient's exact Lipschitz constant);
    every :data:`GAP_EVERY` steps the Frank-Wolfe gap ``<grad F(p), p> - min_x grad F(p)_x`` (an upper bound on
    ``F(p) - F*`` by convexity) is computed, and the solve stops when it is at most ``tol * max(1, F(p))``.

    Options ``tol`` (default ``1e-10``), ``max_iter`` (default 20000: FISTA steps, or column-generation rounds)
    and ``method`` (:data:`METHODS`: ``"fista"``, the default, or ``"column-generation"``, which takes
    :data:`CG_WARM_ITER` FISTA steps and then solves restricted non-negative least squares on a growing set of
    cube points, :func:`_column_generation`: on nltcs's 2^16 points at epsilon 1 it reached a Frank-Wolfe gap of
    3e-7 in 8 rounds and 4.7 s (2.4 s with the present constants), where FISTA was at 0.05 after 30,000 steps and
    110 s); ``on_fail`` as
    :func:`polytope_least_squares`.

    >>> from sosproj.data.contingency import SubsetIndex
    >>> idx = SubsetIndex(2, 2)            # positions: {}, {0}, {1}, {0, 1}
    >>> fit = polytope_fourier_least_squares(np.array([0.0, 1.0, 1.0, 1.0]), np.array([1.0, 0.2, -0.4, 0.0]), idx)
    >>> np.round(fit.fourier, 6).tolist(), bool(fit.converged)
    ([1.0, 0.2, -0.4, 0.0], True)
    """
    check_options(options, OPTIONS, "polytope_fourier_least_squares")
    check_on_fail(on_fail)
    tol = check_positive(options.get("tol", 1e-10), "tol")
    max_iter = check_int(options.get("max_iter", 20000), "max_iter", minimum=1)
    method = options.get("method", "fista")
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {METHODS}; got {method!r}")
    n = index.n
    if n > MAX_N:
        raise InvalidParameterError(f"the exact polytope has 2^n cells; n must be <= {MAX_N} (use the SoS relaxation)")
    a = np.asarray(a, dtype=float)
    g = np.asarray(g, dtype=float)
    if a.shape != (len(index),) or g.shape != (len(index),):
        raise InvalidParameterError(f"a and g must have one entry per index position ({len(index)})")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(g))) or np.any(a < 0):
        raise InvalidParameterError("a must be finite and non-negative, g finite")
    check_memory(8.0 * 6 * 2 ** n, f"the exact marginal polytope (2^{n} cells)")
    masks = (index.members >= 0)
    bits = np.where(masks, np.left_shift(1, np.maximum(index.members, 0)), 0).sum(1)
    size = 1 << n
    a_full = np.zeros(size)
    g_full = np.zeros(size)
    a_full[bits] = a
    g_full[bits] = g

    def grad(p: np.ndarray) -> tuple[np.ndarray, float]:
        r = walsh_hadamard(p) - g_full
        return 2.0 * walsh_hadamard(a_full * r), float(np.sum(a_full * r * r) + const)

    L = 2.0 * size * float(a_full.max()) if a_full.max() > 0 else 1.0
    p = np.full(size, 1.0 / size)
    fista_iter = max_iter if method == "fista" else min(max_iter, CG_WARM_ITER)
    p, obj, gap, iters, converged = _fista(p, grad, L, fista_iter, tol)
    rounds = 0
    if method == "column-generation" and not converged:
        p, obj, gap, rounds, converged = _column_generation(p, grad, a, g, bits, tol, max_iter)
        if not converged:                      # the rounds stalled (round-off of the penalised NNLS): polish
            p2, obj2, gap2, polish, converged = _fista(p, grad, L, min(max_iter, CG_POLISH_ITER), tol)
            rounds += polish
            if converged or obj2 < obj:            # else keep the rounds' point and its certificate
                p, obj, gap = p2, obj2, gap2
    ph = walsh_hadamard(p)
    f = ph[bits]
    y = subset_from_fourier(index) @ f
    fit = PolytopeFit(p, f, np.asarray(y), obj, gap, iters + rounds, converged)
    apply_on_fail(converged, on_fail,
                  f"the marginal-polytope least squares ({method}) did not reach tol={tol:g} in {max_iter} "
                  "iterations; raise max_iter or tol",
                  {"objective": obj, "gap": gap, "iterations": iters + rounds, "value": fit})
    return fit


def _fista(p: np.ndarray, grad: Any, L: float, max_steps: int, tol: float
           ) -> tuple[np.ndarray, float, float, int, bool]:
    """FISTA with gradient restart from the feasible ``p`` (the loop of :func:`polytope_fourier_least_squares`):
    at most ``max_steps`` steps, stopping when the Frank-Wolfe gap, checked every :data:`GAP_EVERY` steps and at the
    last one, is at most ``tol * max(1, F)``. Returns ``(p, F(p), gap, steps, converged)``."""
    z, t = p.copy(), 1.0
    gap, obj, iters, converged = np.inf, np.inf, 0, False
    for iters in range(1, max_steps + 1):  # noqa: B007
        gz, _ = grad(z)
        p_new = project_simplex(z - gz / L)
        if iters % GAP_EVERY == 0 or iters == max_steps:
            gp, obj = grad(p_new)
            gap = float(gp @ p_new - gp.min())
            if gap <= tol * max(1.0, obj):
                p = p_new
                converged = True
                break
        t_new = 0.5 * (1 + math.sqrt(1 + 4 * t * t))
        if float(gz @ (p_new - p)) > 0:        # gradient restart (O'Donoghue-Candes)
            t_new, z = 1.0, p_new.copy()
        else:
            z = p_new + ((t - 1) / t_new) * (p_new - p)
        p, t = p_new, t_new
    return p, obj, gap, iters, converged


#: solvers of :func:`polytope_fourier_least_squares`: ``"fista"`` (FISTA to the tolerance) or
#: ``"column-generation"`` (:data:`CG_WARM_ITER` FISTA steps, then :func:`_column_generation`)
METHODS = ("fista", "column-generation")

#: FISTA steps that give the column generation its first support
CG_WARM_ITER = 50

#: points of the cube added to the column generation's working set per round (the smallest gradient entries)
CG_ADD = 300

#: weight of the row ``sum_j q_j = 1`` in the column generation's non-negative least squares, relative to the
#: largest ``a_U`` (the equality as a penalty; its bias on ``sum q`` is ``O(1 / CG_SUM_WEIGHT)``, removed by the
#: rescaling that follows, and the Frank-Wolfe gap is computed at the rescaled, feasible point)
CG_SUM_WEIGHT = 1e11

#: FISTA steps (warm, from the column generation's last point) when its rounds stall above the tolerance: the
#: penalised NNLS's round-off can stop the rounds at a gap of ~1e-7 relative (scipy 1.17's ``nnls``), which a
#: few hundred first-order steps from that point remove
CG_POLISH_ITER = 5000


def _parity(rows: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``chi_U(x) = (-1)^{popcount(U & x)}`` for the subset bit masks ``rows`` and the cube points ``points``."""
    v = np.bitwise_and(rows[:, None], points[None, :])
    odd = np.zeros(v.shape, dtype=np.int64)
    while v.any():
        odd ^= v & 1
        v = v >> 1
    return 1.0 - 2.0 * odd


def _column_generation(p: np.ndarray, grad: Any, a: np.ndarray, g: np.ndarray, bits: np.ndarray, tol: float,
                       max_rounds: int) -> tuple[np.ndarray, float, float, int, bool]:
    r"""Column generation for :func:`polytope_fourier_least_squares` from a feasible ``p``.

    The optimum is sparse (at most one point per measured moment plus one, Caratheodory). Each round keeps the
    support of ``p`` plus the :data:`CG_ADD` points with the smallest gradient entries (the Frank-Wolfe oracle:
    one Walsh-Hadamard transform) and solves the least squares restricted to them,
    :math:`\min_{q \ge 0} \sum_U a_U ((B q)_U - g_U)^2 + \mu (\mathbf 1^\top q - 1)^2` with
    :math:`B_{Uj} = \chi_U(x_j)`, by the active-set non-negative least squares of Lawson and Hanson
    (:func:`scipy.optimize.nnls`); ``q`` rescaled to sum to 1 is the next ``p``. It stops when the Frank-Wolfe gap
    (the certificate, computed at that feasible point) is at most ``tol * max(1, F)``, after ``max_rounds`` rounds,
    or when a round does not lower the objective.
    """
    from scipy.optimize import nnls

    meas = np.nonzero(a > 0)[0]
    rows, sw = bits[meas], np.sqrt(a[meas])
    mu = np.sqrt(CG_SUM_WEIGHT * float(a.max()))
    gp, obj = grad(p)
    gap = float(gp @ p - gp.min())
    converged = gap <= tol * max(1.0, obj)
    rounds = 0
    while not converged and rounds < max_rounds:
        rounds += 1
        S = np.union1d(np.nonzero(p > 0)[0], np.argsort(gp)[:CG_ADD])
        A = np.vstack([np.full((1, S.size), mu), sw[:, None] * _parity(rows, S)])
        try:
            q, _ = nnls(A, np.concatenate([[mu], sw * g[meas]]), maxiter=50 * S.size)
        except RuntimeError:                        # the active-set iterations ran out: keep the certified point
            break
        if not np.all(np.isfinite(q)) or q.sum() <= 0:
            break
        p_new = np.zeros_like(p)
        p_new[S] = q / q.sum()
        gp_new, obj_new = grad(p_new)
        if obj_new >= obj:                          # no progress: keep the better point and its certificate
            break
        p, gp, obj = p_new, gp_new, obj_new
        gap = float(gp @ p - gp.min())
        converged = gap <= tol * max(1.0, obj)
    return p, obj, gap, rounds, converged


__all__ = ["PolytopeFit", "polytope_least_squares", "polytope_fourier_least_squares", "OPTIONS",
           "MAX_N", "GAP_EVERY", "METHODS", "CG_WARM_ITER", "CG_ADD", "CG_SUM_WEIGHT",
           "CG_POLISH_ITER"]

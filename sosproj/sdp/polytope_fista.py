r"""Least squares over the exact marginal polytope by FISTA (a reference for small ``n``).

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
OPTIONS = ("tol", "max_iter")


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
    check_on_fail(on_fail)
    tol = check_positive(options.get("tol", 1e-10), "tol")
    max_iter = check_int(options.get("max_iter", 20000), "max_iter", minimum=1)
    n = layout.n
    if n > 30:
        raise InvalidParameterError("the exact polytope has 2^n cells; n must be <= 30 (use the SoS relaxation)")
    check_memory(8.0 * 6 * 2 ** n, f"the exact marginal polytope (2^{n} cells)")
    if index is None:
        index = SubsetIndex(n, layout.max_size)
    ff = fourier_form(cells, layout, index, weights)
    masks = (index.members >= 0)
    bits = np.where(masks, np.left_shift(1, np.maximum(index.members, 0)), 0).sum(1)
    size = 1 << n
    a_full = np.zeros(size)
    g_full = np.zeros(size)
    a_full[bits] = ff.a
    g_full[bits] = ff.g

    def grad(p: np.ndarray) -> tuple[np.ndarray, float]:
        ph = walsh_hadamard(p)
        r = ph - g_full
        return 2.0 * walsh_hadamard(a_full * r), float(np.sum(a_full * r * r) + ff.const)

    L = 2.0 * size * float(a_full.max()) if a_full.max() > 0 else 1.0
    p = np.full(size, 1.0 / size)
    z, t = p.copy(), 1.0
    gap, obj, iters, converged = np.inf, np.inf, 0, False
    prev_obj = np.inf
    for iters in range(1, max_iter + 1):  # noqa: B007
        gz, _ = grad(z)
        p_new = project_simplex(z - gz / L)
        gp, obj = grad(p_new)
        gap = float(gp @ p_new - gp.min())
        if gap <= tol * max(1.0, obj):
            p = p_new
            converged = True
            break
        t_new = 0.5 * (1 + math.sqrt(1 + 4 * t * t))
        if obj > prev_obj:                     # adaptive restart (O'Donoghue-Candes)
            t_new, z = 1.0, p_new.copy()
        else:
            z = p_new + ((t - 1) / t_new) * (p_new - p)
        p, t, prev_obj = p_new, t_new, obj
    ph = walsh_hadamard(p)
    f = ph[bits]
    y = subset_from_fourier(index) @ f
    fit = PolytopeFit(p, f, np.asarray(y), obj, gap, iters, converged)
    apply_on_fail(converged, on_fail,
                  f"FISTA for the marginal-polytope least squares did not reach tol={tol:g} in {max_iter} "
                  "iterations; raise max_iter or tol",
                  {"objective": obj, "gap": gap, "iterations": iters, "value": fit})
    return fit


__all__ = ["PolytopeFit", "polytope_least_squares", "OPTIONS"]

r"""A duality-gap certificate for the Boolean-cube weighted least squares (:mod:`sosproj.sdp.cube_tables_admm`).

The problem is :math:`\min_f q(f) = \tfrac12\sum_U a_U (f_U - g_U)^2` s.t. :math:`M(f)\succeq 0`,
:math:`f_{()} = 1` (``a_U = 0`` for the moments outside the objective).  Every feasible ``f`` has
:math:`|f_U| \le 1` (a PSD matrix with unit diagonal has entries in ``[-1, 1]``), so adding that box
changes nothing, and for any :math:`S\succeq 0`, with :math:`s = M^*(S)` (``s_U`` the sum of ``S`` over
the positions of ``U``), weak duality gives the lower bound

.. math::

    q(f^\star) \;\ge\; d(S) = \min_{|f_U|\le 1,\ f_{()} = 1} q(f) - \langle S, M(f)\rangle
    = \tfrac12 a_{()}(1 - g_{()})^2 - s_{()} - \sum_{a_U > 0,\,U\ne()}\Bigl(s_U g_U + \frac{s_U^2}{2 a_U}\Bigr)
      - \sum_{a_U = 0,\,U\ne()} |s_U|

(the measured terms minimized without the box, which only lowers the bound).  For a feasible
:math:`\hat f` (``M`` PSD) the optimality of :math:`f^\star` over the convex feasible set and the
``a``-strong convexity of ``q`` on the measured moments give

.. math::  \tfrac12\|\hat f - f^\star\|_a^2 \;\le\; q(\hat f) - q(f^\star) \;\le\; q(\hat f) - d(S),

a certified distance, in the objective's own metric, between the answer's measured moments and
those of the exact projection, whatever the (possibly non-unique) unmeasured moments do.  ADMM's
multiplier gives ``S`` (:math:`S = -\rho L \succeq 0` for the scaled ``L`` of
:class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`, the negative part of a matrix).

When ``a`` is the inverse variance of the noisy measurement ``g`` (the default metric of
:func:`sosproj.mechanisms.marginals_pipeline._cube_then_lnn`), :math:`\|g - f_{\rm true}\|_a^2` has
expectation about the number of measured moments, so the bound can be compared with the public
noise scale :math:`\sqrt{\#\{U \ne (): a_U > 0\}}` (:func:`measured_count`).

References: Boyd and Vandenberghe, *Convex Optimization* (2004), sections 5.2 and 9.1.2 (weak
duality; strong convexity bounds the distance to the minimizer by the suboptimality).

>>> import numpy as np
>>> from sosproj.sdp.cube_tables_admm import CubeTablesProjector
>>> p = CubeTablesProjector(2, degree=2, weights=np.array([0., 1., 1., 1.]))
>>> g = np.array([1., 0., 0., 0.5])                       # already feasible: f = g, S = 0
>>> float(certified_distance(p, g, g, np.zeros((3, 3))))
0.0
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class CubeProblem(Protocol):
    """What the certificate reads of a compiled cube problem
    (:class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`): the weights ``a`` and the adjoint ``M^*``."""

    a: np.ndarray

    def adjoint(self, X: np.ndarray) -> np.ndarray:
        """``M^*(X)_U``: the sum of ``X`` over the positions of ``U``."""
        ...


def dual_bound(proj: CubeProblem, g: np.ndarray, S: np.ndarray) -> float:
    r"""The lower bound :math:`d(S)` on the optimal value (module docs) for a PSD ``S`` (not checked:
    the caller passes a projection's negative part). ``g`` has one entry per moment."""
    a = proj.a
    s = proj.adjoint(S)
    meas = a > 0
    rest = ~meas
    meas[0] = rest[0] = False                     # f_() = 1 is fixed: its term is a constant
    const = 0.5 * a[0] * (1.0 - g[0]) ** 2
    return float(const - s[0] - np.sum(s[meas] * g[meas] + s[meas] ** 2 / (2.0 * a[meas]))
                 - np.sum(np.abs(s[rest])))


def measured_count(a: np.ndarray) -> int:
    """Number of measured moments ``U != ()`` (``a_U > 0``): the squared noise scale of the module docs."""
    return int(np.count_nonzero(np.asarray(a)[1:] > 0))


def certified_distance(proj: CubeProblem, f_feasible: np.ndarray, g: np.ndarray, S: np.ndarray) -> float:
    r""":math:`\sqrt{2(q(\hat f) - d(S))}`, an upper bound on :math:`\|\hat f - f^\star\|_a` for a
    feasible ``f_feasible`` (``M`` PSD, ``f_{()} = 1``) and a PSD ``S`` (module docs)."""
    q = 0.5 * float(np.sum(proj.a * (f_feasible - g) ** 2))
    return float(np.sqrt(2.0 * max(q - dual_bound(proj, g, S), 0.0)))


__all__ = ["certified_distance", "dual_bound", "measured_count"]

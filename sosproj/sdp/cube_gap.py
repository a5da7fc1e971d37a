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

The box term :math:`\sum_{a_U = 0} |s_U|` is what keeps an ADMM multiplier's bound loose long after the
measured moments have settled (the exact dual has :math:`s_U = 0` there). :func:`polish_dual` shrinks
it by alternating projections between the subspace :math:`\{s_U = 0,\ a_U = 0\}` and the PSD cone:
adding :math:`M(\delta)` changes :math:`s` by :math:`M^*M(\delta) = c \circ \delta` (``c_U`` the
number of positions of ``U``, so ``M^* M`` is diagonal) and :math:`\delta_U = -s_U / c_U` on the
unmeasured moments is the Frobenius projection onto that subspace; the PSD projection follows.
Every iterate is PSD, so each gives a valid bound, and :func:`best_certificate` keeps the smallest.

References: Boyd and Vandenberghe, *Convex Optimization* (2004), sections 5.2 and 9.1.2 (weak
duality; strong convexity bounds the distance to the minimizer by the suboptimality); alternating
projections: J. von Neumann (1950), H. H. Bauschke and J. M. Borwein, SIAM Review 38 (1996).

>>> import numpy as np
>>> from sosproj.sdp.cube_tables_admm import CubeTablesProjector
>>> p = CubeTablesProjector(2, degree=2, weights=np.array([0., 1., 1., 1.]))
>>> g = np.array([1., 0., 0., 0.5])                       # already feasible: f = g, S = 0
>>> float(certified_distance(p, g, g, np.zeros((3, 3))))
0.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from sosproj.sdp.cones import project_psd_dense


class CubeProblem(Protocol):
    """What the certificate reads of a compiled cube problem
    (:class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`): the weights ``a`` and the adjoint ``M^*``."""

    a: np.ndarray

    def adjoint(self, X: np.ndarray) -> np.ndarray:
        """``M^*(X)_U``: the sum of ``X`` over the positions of ``U``."""
        ...


class PolishableCubeProblem(CubeProblem, Protocol):
    """A cube problem with the moment matrix map and the position counts (:func:`polish_dual`)."""

    count: np.ndarray

    def moment_matrix(self, f: np.ndarray) -> np.ndarray:
        """``M(f)[A, B] = f_{A xor B}``."""
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


def _psd_dense(Y: np.ndarray) -> np.ndarray:
    return project_psd_dense(Y)[0]


def polish_dual(proj: PolishableCubeProblem, S: np.ndarray, rounds: int,
                psd: Callable[[np.ndarray], np.ndarray] = _psd_dense) -> list[np.ndarray]:
    r"""``rounds`` alternating projections of the PSD ``S`` (module docs): ``S <- Pi_PSD(S + M(delta))`` with
    ``delta_U = -s_U / c_U`` on the unmeasured moments ``U != ()`` (``a_U = 0``), 0 elsewhere. Returns the
    PSD iterates (not ``S`` itself). ``psd`` is the PSD projection (default
    :func:`~sosproj.sdp.cones.project_psd_dense`)."""
    rest = np.asarray(proj.a) == 0
    rest[0] = False
    out = []
    for _ in range(int(rounds)):
        s = proj.adjoint(S)
        delta = np.zeros_like(s)
        delta[rest] = -s[rest] / proj.count[rest]
        S = psd(S + proj.moment_matrix(delta))
        out.append(S)
    return out


def best_certificate(proj: PolishableCubeProblem, f_feasible: np.ndarray, g: np.ndarray, S: np.ndarray,
                     rounds: int, psd: Callable[[np.ndarray], np.ndarray] = _psd_dense,
                     target: float = 0.0) -> float:
    r"""The smallest :func:`certified_distance` of the feasible ``f_feasible`` over the PSD ``S`` and its
    ``rounds`` polished iterates (:func:`polish_dual`): a valid bound on :math:`\|\hat f - f^\star\|_a`.
    Stops polishing as soon as the bound is ``<= target`` (default 0: all rounds)."""
    best = certified_distance(proj, f_feasible, g, S)
    for _ in range(int(rounds)):
        if best <= target:
            break
        S = polish_dual(proj, S, 1, psd)[0]
        best = min(best, certified_distance(proj, f_feasible, g, S))
    return best


__all__ = ["best_certificate", "certified_distance", "dual_bound", "measured_count", "polish_dual"]

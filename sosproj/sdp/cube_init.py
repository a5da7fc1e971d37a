r"""A starting point for the unmeasured moments of the Boolean-cube least squares (cumulant closure).

:class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector` projects measured Fourier moments
``g_U = E[prod_{i in U} z_i]`` (``z_i = 1 - 2 x_i`` in ``{-1, 1}``) onto the degree-``d`` cube
relaxation. The moments that carry no weight (``a_U = 0``; on an all-3-way workload the 1,820 order-4
moments of 16 attributes) enter only the moment matrix. They are not unique at the solution, and an
ADMM started from ``f_U = 0`` spends its first hundreds of iterations moving them to values that make
the moment matrix nearly PSD. :func:`cumulant_completion` starts them instead where a distribution
with the measured low-order moments and *vanishing higher joint cumulants* would put them (a moment
closure): with means :math:`m_i = f_i`, second cumulants :math:`\kappa_{ij} = f_{ij} - m_i m_j` and
third cumulants :math:`\kappa_{ijk} = f_{ijk} - \sum_3 \kappa_{ij} m_k - m_i m_j m_k`,

.. math::

    f_{ijk} &= \kappa_{ijk} + \sum_{3} \kappa_{ij} m_k + m_i m_j m_k \quad (\kappa_{ijk} = 0 \text{ if unmeasured}), \\
    f_{ijkl} &= \sum_{4} \kappa_{ijk} m_l + \sum_{3} \kappa_{ij}\kappa_{kl} + \sum_{6} \kappa_{ij} m_k m_l
                + m_i m_j m_k m_l \quad (\kappa_{ijkl} = 0),

clipped to ``[-1, 1]`` (every feasible moment lies there). Only the starting point changes: the
projection is the same problem, and its answer is the same to the solver's tolerance (measured
moments; the unmeasured ones are not unique). Post-processing of the noisy measurement only.

References: the cumulant (moment-closure) expansion, e.g. P. McCullagh, *Tensor Methods in
Statistics* (1987), ch. 2 (moments in terms of cumulants).

>>> import numpy as np
>>> from sosproj.data.contingency import SubsetIndex
>>> idx = SubsetIndex(4, 4)
>>> f = np.zeros(len(idx)); f[0] = 1.0
>>> f[1:5] = 0.5                                     # independent attributes with mean 0.5 ...
>>> f[5:11] = 0.25; f[11:15] = 0.125                  # ... and their product moments
>>> measured = np.zeros(len(idx), dtype=bool); measured[1:15] = True
>>> float(cumulant_completion(idx, f, measured)[15])  # 0.5 ** 4: the product, as independence says
0.0625
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from sosproj.data.contingency import SubsetIndex
from sosproj.errors import InvalidParameterError


def _positions(index: SubsetIndex, members: np.ndarray, cols: tuple[int, ...]) -> np.ndarray:
    """Positions in ``index`` of the sub-subsets of the rows of ``members`` on the columns ``cols``."""
    rows = np.full((members.shape[0], index.max_size), -1, dtype=np.int64)
    rows[:, :len(cols)] = members[:, list(cols)]
    return index.lookup(rows)


def cumulant_completion(index: SubsetIndex, f: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """``f`` with its unmeasured moments of orders 3 and 4 set by the cumulant closure (module docs).

    ``f`` has one entry per subset of ``index`` (``f[0] = 1``); ``measured`` (same length, bool) marks the
    moments kept as they are. Unmeasured moments of order 1 and 2 are taken as they are in ``f`` (the
    caller's values, e.g. 0); orders above 4 are left unchanged. Returns a new array.
    """
    f = np.array(f, dtype=float)
    measured = np.asarray(measured, dtype=bool)
    if f.shape != (len(index),) or measured.shape != f.shape:
        raise InvalidParameterError("f and measured need one entry per subset of the index")
    for size in (3, 4):
        if size > index.max_size:
            break
        lo, hi = int(index.starts[size]), int(index.starts[size + 1])
        todo = np.flatnonzero(~measured[lo:hi]) + lo
        if todo.size == 0:
            continue
        mem = index.members[todo, :size]
        m = [f[1 + mem[:, c]] for c in range(size)]                      # singletons sit at 1..n

        def kappa2(i: int, j: int, mem: np.ndarray = mem, m: list = m) -> np.ndarray:
            return f[_positions(index, mem, (i, j))] - m[i] * m[j]

        if size == 3:                                                    # kappa_ijk = 0: unmeasured
            val = (kappa2(0, 1) * m[2] + kappa2(0, 2) * m[1] + kappa2(1, 2) * m[0]
                   + m[0] * m[1] * m[2])
        else:
            k2 = {(i, j): kappa2(i, j) for i, j in combinations(range(4), 2)}
            val = m[0] * m[1] * m[2] * m[3]
            for i, j, k, ll in ((0, 1, 2, 3), (0, 2, 1, 3), (0, 3, 1, 2)):
                val = val + k2[(i, j)] * k2[(k, ll)]
            for (i, j) in k2:
                k, ll = (c for c in range(4) if c not in (i, j))
                val = val + k2[(i, j)] * m[k] * m[ll]
            for trip in combinations(range(4), 3):
                i, j, k = trip
                (rest,) = (c for c in range(4) if c not in trip)
                k3 = (f[_positions(index, mem, trip)] - k2[(i, j)] * m[k] - k2[(i, k)] * m[j]
                      - k2[(j, k)] * m[i] - m[i] * m[j] * m[k])
                val = val + k3 * m[rest]
        f[todo] = np.clip(val, -1.0, 1.0)
    return f


__all__ = ["cumulant_completion"]

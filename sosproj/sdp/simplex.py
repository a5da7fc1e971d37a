r"""Euclidean projection onto a scaled simplex :math:`\{x \ge 0,\ \sum_i x_i = t\}` (one home for the rule).

Sort-and-threshold (Held, Wolfe and Crowder 1974; Duchi, Shalev-Shwartz, Singer and Chandra 2008):
:math:`x = (v - \tau)_+` with the unique :math:`\tau` that makes the entries sum to :math:`t`. Used by the
polytope least squares (:mod:`sosproj.sdp.polytope_fista`), the spectraplex projections
(:mod:`sosproj.sets.psd`) and the 1-way risk estimate of the marginal pipeline
(:func:`sosproj.mechanisms.marginals_pipeline.sure_one_way`).

>>> import numpy as np
>>> project_simplex(np.array([0.5, 0.8, -1.0]), 1.0).tolist()
[0.35, 0.65, 0.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["project_simplex"]


def project_simplex(v: np.ndarray, total: float = 1.0) -> np.ndarray:
    """The nearest point of ``{x >= 0, sum x = total}`` to the vector ``v`` (``total > 0``), in O(n log n)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - total
    ind = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / ind > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)

r"""Floating-point safety for real-valued releases: rounding to a public grid (snapping).

The caveat (Mironov, CCS 2012). Textbook noise samplers compute a real number in
floating point; the set of doubles that ``f(D) + noise`` can produce, and their
probabilities, depend on ``f(D)`` in the low-order bits. Mironov showed that for
the Laplace mechanism the low bits of a single output can reveal the input
exactly, whatever epsilon says. Gaussian samplers built from floating point have
the same kind of defect: the idealised guarantee holds for real numbers, not for
the doubles actually released.

Mitigations in sosproj
----------------------
* **Counts** (marginals, contingency tables): use integer-valued noise, the
  discrete Gaussian (:mod:`sosproj.privacy.discrete_gaussian`, exact integer
  sampling); the release is an integer and no float is involved.
* **Real-valued releases** (Gram matrices, moment tensors): snap the released
  values to a public grid with spacing a power of two :math:`\Lambda`, after
  clamping to a public bound :math:`B` (Mironov's snapping, minus his Laplace
  step): :func:`snap`. Rounding is post-processing of the ideal mechanism, so the
  ideal guarantee is untouched; and the released value no longer carries the low
  bits of the float computation. It differs from the ideal rounded release only
  when the ideal value lies within a few ulps of a rounding boundary, an event
  of probability about :math:`2^{-52} B / \Lambda` per entry for unit-scale
  densities. This is a heuristic mitigation for the Gaussian (Mironov proves the
  corresponding bound only for the Laplace mechanism); where a formal float-level
  guarantee is required, release integer counts with discrete Gaussian noise.

Choosing the grid. :func:`power_of_two_at_least` gives Mironov's
:math:`\Lambda` = smallest power of two :math:`\ge` a public scale. Rounding adds
error at most :math:`\Lambda/2` per entry (variance :math:`\Lambda^2/12` for a
spread-out value); ``spacing = power_of_two_at_least(sigma / 8)`` costs under 0.1%
of the noise variance. Spacings that are powers of two make the rounding exact
in binary floating point (division and multiplication by :math:`\Lambda` are exact).

Examples
--------
>>> import numpy as np
>>> power_of_two_at_least(0.3)
0.5
>>> snap(np.array([0.1, 0.26, -3.0]), 0.25, bound=1.0)
array([ 0.  ,  0.25, -1.  ])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sosproj.validation import check_array, check_positive


def power_of_two_at_least(scale: float) -> float:
    r"""Smallest power of two :math:`\Lambda \ge` ``scale`` (Mironov's grid spacing).

    >>> power_of_two_at_least(1.0), power_of_two_at_least(5.0), power_of_two_at_least(0.1)
    (1.0, 8.0, 0.125)
    """
    scale = check_positive(scale, "scale")
    m, e = math.frexp(scale)  # scale = m * 2**e, 0.5 <= m < 1
    return math.ldexp(1.0, e - 1) if m == 0.5 else math.ldexp(1.0, e)


def round_to_grid(values: Any, spacing: float) -> np.ndarray:
    r"""Round every entry to the nearest multiple of ``spacing``: :math:`\Lambda\,\mathrm{rint}(x/\Lambda)`.

    Ties go to even.

    ``spacing`` must be public (never derived from the data). With a power-of-two
    spacing the result lies exactly on the grid.

    >>> round_to_grid([0.3, 0.7, -1.2], 0.5)
    array([ 0.5,  0.5, -1. ])
    """
    spacing = check_positive(spacing, "spacing")
    x = check_array(values, "values", allow_empty=True)
    return spacing * np.rint(x / spacing)


def snap(values: Any, spacing: float, *, bound: float | None = None) -> np.ndarray:
    r"""Clamp to :math:`[-B, B]` (if ``bound`` is given), round to the grid :math:`\Lambda\mathbb Z`, clamp again.

    Mironov's snapping without its noise step; apply it to a noisy release
    (post-processing, so privacy is kept). ``spacing`` and ``bound`` are public.

    >>> snap([2.7, -0.05], 1.0, bound=2.0)
    array([ 2., -0.])
    """
    spacing = check_positive(spacing, "spacing")
    x = check_array(values, "values", allow_empty=True)
    if bound is not None:
        bound = check_positive(bound, "bound")
        x = np.clip(x, -bound, bound)
    out = round_to_grid(x, spacing)
    if bound is not None:
        out = np.clip(out, -bound, bound)
    return out


def on_grid(values: Any, spacing: float) -> bool:
    """Whether every entry is an exact multiple of ``spacing``.

    >>> on_grid([0.5, -1.25], 0.25), on_grid([0.3], 0.25)
    (True, False)
    """
    spacing = check_positive(spacing, "spacing")
    x = check_array(values, "values", allow_empty=True)
    return bool(np.all(np.rint(x / spacing) * spacing == x))


__all__ = ["power_of_two_at_least", "round_to_grid", "snap", "on_grid"]

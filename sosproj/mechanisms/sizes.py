r"""Memory refusals decided from sizes alone, before any pass over the data.

A k-way marginal release allocates arrays whose sizes depend only on public
quantities: the number of attributes ``n``, the order ``k``, the method, the row
bound ``t`` and the relaxation degree ``d``. When one of them cannot fit, the release
must say so at once, not after a pass over the records (reading, validating,
counting). :func:`check_marginals_size` computes lower bounds of those allocations
and refuses with :class:`~sosproj.errors.ResourceLimitError` (through
:func:`~sosproj.validation.check_memory`, budget: 60% of the available memory or
``SOSPROJ_MEMORY_LIMIT``); :func:`~sosproj.mechanisms.marginals.release_marginals`
(through :func:`~sosproj.mechanisms.marginals.check_release_size`, which resolves the
method and the default degree), :func:`~sosproj.mechanisms.marginal_tables.release_tables`
and ``sosproj release marginals`` (from the input file's header, before reading it)
call it first. The later, exact checks of the solvers stay in place. It is also the one
home of :func:`default_degree`, the default relaxation degree of every marginals method.
This module imports no mechanism (the callers resolve the method), so it sits below them.

Lower bounds used (8-byte floats):

* ``tables``: the measured cells, :math:`3\cdot 2^k\binom nk` (counts, noisy counts,
  fractions), and the Fourier ADMM's workspace of the degree-``d`` cube relaxation,
  :math:`10 N^2 + 6 M` with :math:`N = \sum_{j\le d/2}\binom nj` (moment-matrix order) and
  :math:`M = \sum_{j\le d}\binom nj` (moments);
* tensor methods: the noisy tensor and its post-processing, :math:`4 n^k`;
* ``cube``: also two dense moment matrices of order :math:`\sum_{j\le d/2}\binom nj`;
  ``sos`` / ``sos-sparse``: of order :math:`\binom{n + d/2}{d/2}` (the monomials of degree
  ``<= d/2`` in ``n`` variables; the sparse system has more).

Examples
--------
>>> check_marginals_size(10, 3, method="tables", degree=6)          # fits: returns quietly
>>> check_marginals_size(400, 3, method="tables", degree=4, limit_bytes=2**33)
Traceback (most recent call last):
...
sosproj.errors.ResourceLimitError: the degree-4 cube relaxation of the 3-way tables over n=400 attributes ...
"""

from __future__ import annotations

import math
from typing import Any

from sosproj.validation import check_int, check_memory

__all__ = ["check_marginals_size", "cube_moment_orders", "default_degree", "marginals_memory_floor", "sizes_of",
           "SMALL_ORDER", "CUBE_DEGREE4_MAX_N"]


#: Moment-matrix order up to which ``method="tables"`` with ``degree=None`` raises the degree by 2
#: (cheap, and closes most of the gap to the exact marginal polytope; see docs/tables.md and
#: docs/bench_tables.md).
SMALL_ORDER = 300

#: Largest ``n`` for which ``"cube"`` with ``k = 2`` defaults to degree 4 (moment matrix of order
#: ``1 + n + C(n, 2) <= 301``); above it the default is degree 2 for speed.
CUBE_DEGREE4_MAX_N = 24


def default_degree(method: str, k: int, n: int | None = None) -> int | None:
    """Default relaxation degree for ``method`` at order ``k`` over ``n`` attributes (``None``: no SDP).

    * ``tables`` (the Boolean-cube projection of measured contingency tables): ``2 ceil(k/2)``,
      raised by 2 when ``n`` is given and the larger moment matrix (order
      ``sum_{j <= d/2} C(n, j)``) has order ``<= SMALL_ORDER`` (300), e.g. ``n <= 12`` for
      ``k = 3``; measured to bring the error to that of the exact marginal polytope at ``n = 10``.
    * ``sos``: ``k`` for even ``k`` (flattening), ``2k-2`` for odd ``k >= 3`` (injective-norm
      certificate; ``2`` for ``k = 1``).
    * ``cube``: ``2 ceil(k/2)``, raised to 4 for ``k = 2`` when ``n <= CUBE_DEGREE4_MAX_N``
      (degree 4 makes every 2-way table cell non-negative, which degree 2 does not; measured
      0.58-0.9x the degree-2 error at ``n = 10, 11``).
    * ``sos-sparse``: ``max(2 ceil(k/2), 4k-4)`` (the paper's sparse certificate).
    * any other method (no SDP): ``None``.

    >>> default_degree("sos", 3), default_degree("sos", 4), default_degree("cube", 3)
    (4, 4, 4)
    >>> default_degree("cube", 2, n=10), default_degree("cube", 2, n=40)
    (4, 2)
    >>> [default_degree("tables", k) for k in (1, 2, 3, 4)]
    [2, 2, 4, 4]
    >>> default_degree("tables", 3, 10), default_degree("tables", 3, 24)
    (6, 4)
    """
    if method == "tables":
        d = 2 * math.ceil(check_int(k, "k", minimum=1) / 2)
        if n is not None:
            n = check_int(n, "n", minimum=1)
            t = (d + 2) // 2
            if t <= n and sum(math.comb(n, j) for j in range(t + 1)) <= SMALL_ORDER:
                d += 2
        return d
    if method == "sos":
        return k if k % 2 == 0 else max(2, 2 * k - 2)
    if method == "cube":
        d = 2 * math.ceil(k / 2)
        if k == 2 and (n is None or n <= CUBE_DEGREE4_MAX_N):
            d = 4
        return d
    if method == "sos-sparse":
        return max(2 * math.ceil(k / 2), 4 * k - 4)
    return None



def cube_moment_orders(n: int, degree: int) -> tuple[int, int]:
    """``(N, M)``: moment-matrix order and number of moments of the degree-``degree`` cube relaxation.

    >>> cube_moment_orders(10, 4)
    (56, 386)
    """
    t = min(degree // 2, n)
    top = min(degree, n)
    return (sum(math.comb(n, j) for j in range(t + 1)), sum(math.comb(n, j) for j in range(top + 1)))


def marginals_memory_floor(n: int, k: int, *, method: str, degree: int | None = None
                           ) -> list[tuple[float, str]]:
    """Lower bounds ``(bytes, what)`` of the allocations of a marginal release (see the module docstring).

    ``method`` is a resolved method (not ``"auto"``) and ``degree`` its relaxation degree
    (``None`` for the methods without a relaxation).

    >>> for size, what in marginals_memory_floor(10, 3, method="cube", degree=4):
    ...     print(int(size), what)
    32000 the order-3 noisy tensor over n=10 attributes
    50176 the degree-4 cube relaxation over n=10 attributes (moment matrix order 56)
    """
    out: list[tuple[float, str]] = []
    if method == "tables":
        d = int(degree) if degree is not None else 2 * math.ceil(k / 2)
        N, M = cube_moment_orders(n, d)
        out.append((8.0 * 3 * 2**k * math.comb(n, k), f"the {math.comb(n, k)} noisy {k}-way tables over n={n}"))
        out.append((8.0 * (10 * N * N + 6 * M), f"the degree-{d} cube relaxation of the {k}-way tables over "
                                                f"n={n} attributes (moment matrix order {N})"))
        return out
    out.append((8.0 * 4 * float(n) ** k, f"the order-{k} noisy tensor over n={n} attributes"))
    if degree is not None and method == "cube":
        N, _ = cube_moment_orders(n, int(degree))
        out.append((8.0 * 2 * N * N, f"the degree-{degree} cube relaxation over n={n} attributes "
                                     f"(moment matrix order {N})"))
    elif degree is not None and method in ("sos", "sos-sparse"):
        N = math.comb(n + int(degree) // 2, int(degree) // 2)
        out.append((8.0 * 2 * N * N, f"the degree-{degree} {method} relaxation over n={n} attributes "
                                     f"(moment matrix order >= {N})"))
    return out


def sizes_of(shape: Any, k: Any, sparsity: Any = None, degree: Any = None) -> tuple[int, int] | None:
    """``(n, k)`` when the shape and the parameters can be sized, else ``None``.

    Arguments that are not yet valid (a non-integer ``k``, a 1-D shape) are left to the
    release's own validation: the size check only refuses what it can size.

    >>> sizes_of((50, 400), 3), sizes_of((50,), 3), sizes_of((5, 4), "3")
    ((400, 3), None, None)
    """
    try:
        m, n = (int(v) for v in shape)
    except (TypeError, ValueError):
        return None
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        return None
    if sparsity is not None and (isinstance(sparsity, bool) or not isinstance(sparsity, int)):
        return None
    if degree is not None and (isinstance(degree, bool) or not isinstance(degree, int) or degree < 1):
        return None
    return n, k


def check_marginals_size(n: int, k: int, *, method: str, degree: int | None = None,
                         limit_bytes: float | None = None) -> None:
    """Refuse (:class:`~sosproj.errors.ResourceLimitError`), from sizes alone, a release that cannot fit.

    ``method`` resolved, ``degree`` the relaxation degree it will use (see
    :func:`marginals_memory_floor`); callers resolve both from public parameters
    (:func:`sosproj.mechanisms.marginals.check_release_size`).

    >>> check_marginals_size(5, 2, method="symmetrize")
    """
    for estimate, what in marginals_memory_floor(n, k, method=method, degree=degree):
        check_memory(estimate, what, limit_bytes=limit_bytes)

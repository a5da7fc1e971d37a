r"""Noise samplers used by every mechanism (the only place noise is drawn).

All mechanisms draw their noise through this module, with a generator obtained
from :func:`sosproj.rng.as_generator` (``rng=None`` means fresh OS entropy), so
that

* the privacy audit and the tests can rely on one code path, and
* the test-only switch :func:`sosproj.testing.noise_disabled` can turn noise off
  to check that a mechanism is exact in the noiseless limit (never use it in
  production code: it removes all privacy).

Examples
--------
>>> from sosproj.privacy.noise import gaussian_noise
>>> gaussian_noise((2,), 1.0, rng=0).shape
(2,)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.rng import RngLike, as_generator
from sosproj.testing import noise_is_disabled
from sosproj.validation import check_int


def _check_shape(shape: Any) -> tuple[int, ...]:
    """Validate a noise shape: an int or a tuple of non-negative ints."""
    items = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return tuple(check_int(s, "shape entry", minimum=0) for s in items)


def gaussian_noise(shape: int | tuple[int, ...], sigma: float, rng: RngLike = None) -> np.ndarray:
    r"""I.i.d. :math:`N(0, \sigma^2)` noise of the given shape (float64).

    ``rng`` follows SPEC 7; ``None`` uses fresh OS entropy. See
    :mod:`sosproj.privacy.rounding` for the floating-point caveat (Mironov 2012).

    >>> float(gaussian_noise((10000,), 2.0, rng=1).std()) > 1.9
    True
    """
    sigma = float(sigma)
    if not np.isfinite(sigma) or sigma < 0:
        raise InvalidParameterError("sigma must be a finite non-negative number")
    gen = as_generator(rng)
    shape = _check_shape(shape)
    if noise_is_disabled():
        return np.zeros(shape)
    return sigma * gen.standard_normal(shape)


__all__ = ["gaussian_noise"]

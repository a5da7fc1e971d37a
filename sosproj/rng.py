"""Random-generator handling in one place (Scientific Python SPEC 7).

``rng`` may be ``None`` (fresh OS entropy: the default for every privacy
mechanism, so that noise is never reproducible by accident), an ``int`` seed, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator` (used as is).

Examples
--------
>>> from sosproj.rng import as_generator
>>> g = as_generator(0)
>>> float(g.standard_normal()) == float(as_generator(0).standard_normal())
True
"""

from __future__ import annotations

from typing import Union

import numpy as np

from sosproj.errors import InputTypeError, InvalidParameterError

RngLike = Union[None, int, np.integer, np.random.SeedSequence, np.random.Generator]


def as_generator(rng: RngLike = None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng`` (SPEC 7).

    ``None`` draws fresh entropy from the operating system; an integer or a
    ``SeedSequence`` seeds a new PCG64 generator; a ``Generator`` is returned
    unchanged (the caller's stream advances). ``numpy.random.RandomState`` and
    other objects are refused: legacy generators have weaker seeding.

    >>> as_generator(None) is not as_generator(None)
    True
    """
    if rng is None:
        return np.random.default_rng(np.random.SeedSequence())
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise InputTypeError("rng must be None, an int seed, a SeedSequence or a "
                             "numpy Generator; got a bool")
    if isinstance(rng, (int, np.integer)):
        if int(rng) < 0:
            raise InvalidParameterError("rng seed must be a non-negative integer")
        return np.random.default_rng(int(rng))
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    raise InputTypeError(
        "rng must be None, an int seed, a numpy SeedSequence or a numpy Generator "
        f"(SPEC 7); got an object of type {type(rng).__name__}"
    )


__all__ = ["RngLike", "as_generator"]

"""Test-only switches. Nothing here belongs in production code.

:func:`noise_disabled` makes every sampler of :mod:`sosproj.privacy` return exact
zeros, so tests can check that a mechanism is exact in the noiseless limit (e.g.
that released marginal counts equal the true counts). **It removes all privacy.**
A release made inside it says so: its ``info["noise_disabled"]`` is ``True``
(:func:`sosproj.mechanisms.release.noise_info`), and the accountant records the
charge as usual (the switch is no way around a budget).

The switch is thread-local and restores the previous state on exit.

Examples
--------
>>> from sosproj.testing import noise_disabled, noise_is_disabled
>>> from sosproj.privacy.noise import gaussian_noise
>>> with noise_disabled():
...     gaussian_noise((2,), 1.0, rng=0)
array([0., 0.])
>>> noise_is_disabled()
False
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_state = threading.local()


def noise_is_disabled() -> bool:
    """Whether :func:`noise_disabled` is active in this thread.

    >>> noise_is_disabled()
    False
    """
    return bool(getattr(_state, "disabled", False))


@contextlib.contextmanager
def noise_disabled() -> Iterator[None]:
    """TEST-ONLY: inside this context every sampler returns exact zeros (no privacy at all).

    >>> with noise_disabled():
    ...     noise_is_disabled()
    True
    """
    previous = noise_is_disabled()
    _state.disabled = True
    try:
        yield
    finally:
        _state.disabled = previous


__all__ = ["noise_disabled", "noise_is_disabled"]

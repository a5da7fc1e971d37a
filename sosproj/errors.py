"""The sosproj error family.

Every error raised on purpose by sosproj derives from :class:`SosprojError`, so a
caller can catch the whole family with one ``except`` clause, and from the builtin
exception that fits (``ValueError`` for bad values, ``TypeError`` for bad types),
so generic code keeps working. Messages name the argument and the fix; they never
contain data values (privacy: an error message is a release channel too).

Examples
--------
>>> from sosproj.errors import InvalidParameterError, SosprojError
>>> try:
...     raise InvalidParameterError("epsilon must be > 0; pass a positive float")
... except SosprojError as err:
...     print(type(err).__name__)
InvalidParameterError
"""

from __future__ import annotations

from typing import Any


class SosprojError(Exception):
    """Base class of every error that sosproj raises on purpose."""


class InvalidParameterError(SosprojError, ValueError):
    """A scalar parameter (epsilon, delta, sensitivity, degree, ...) is out of range."""


class InvalidInputError(SosprojError, ValueError):
    """An input array has the wrong shape, is non-finite, empty or not binary."""


class UnknownOptionError(InvalidParameterError, TypeError):
    """A set, solver or mechanism was given a keyword option it does not accept.

    Raised by :func:`sosproj.policy.check_options`, the one place that checks
    options, with one message shape: ``"<where> got unknown option(s) [...];
    accepted options: [...]"``. It is a ``ValueError`` (an invalid parameter) and a
    ``TypeError`` (like Python's own unexpected-keyword error).
    """


class InputTypeError(SosprojError, TypeError):
    """An argument has the wrong type (e.g. a string where an array is expected)."""


class DataPolicyError(SosprojError, ValueError):
    """Data would break the stated sensitivity (e.g. a row with more than t ones)."""


class ResourceLimitError(SosprojError, MemoryError):
    """A problem would exceed the memory budget; raised before anything is built."""

    def __init__(self, message: str, *, estimate_bytes: int | None = None,
                 limit_bytes: int | None = None) -> None:
        super().__init__(message)
        self.estimate_bytes = estimate_bytes
        self.limit_bytes = limit_bytes


class PrivacyBudgetError(SosprojError, ValueError):
    """A release would exceed the privacy budget of an accountant."""


class ProjectionError(SosprojError, RuntimeError):
    """A projection or conic solve did not reach the requested accuracy.

    ``info`` carries the solver diagnostics (status, residuals, iterations, time),
    so the caller can decide what to do; the unconverged point is available as
    ``info.get("value")`` when the solver produced one, but is never returned as
    if it were exact.
    """

    def __init__(self, message: str, info: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.info = dict(info or {})


class SolverNotAvailableError(SosprojError, ImportError):
    """A requested solver backend is not installed or not licensed."""


__all__ = [
    "SosprojError",
    "InvalidParameterError",
    "InvalidInputError",
    "UnknownOptionError",
    "InputTypeError",
    "DataPolicyError",
    "ResourceLimitError",
    "PrivacyBudgetError",
    "ProjectionError",
    "SolverNotAvailableError",
]

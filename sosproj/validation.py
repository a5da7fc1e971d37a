"""Input validation at the door, shared by every public entry point.

One helper per misuse class, each raising one error of the
:mod:`sosproj.errors` family whose message names the argument and the fix and
never contains data values (an error message must not leak the data).

Examples
--------
>>> import numpy as np
>>> from sosproj.validation import check_array, check_epsilon
>>> check_array([[1, 2], [3, 4]], name="A", ndim=2).dtype
dtype('float64')
>>> check_epsilon(0.5)
0.5
"""

from __future__ import annotations

import math
import os
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import (
    InputTypeError,
    InvalidInputError,
    InvalidParameterError,
    ResourceLimitError,
)

# --------------------------------------------------------------------- scalars


def _as_real(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
        raise InputTypeError(f"{name} must be a real number; got {type(value).__name__}")
    out = float(value)
    if not math.isfinite(out):
        raise InvalidParameterError(f"{name} must be finite; pass a finite positive number")
    return out


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float, refusing non-finite or non-positive values.

    >>> check_epsilon(1)
    1.0
    """
    eps = _as_real(epsilon, name)
    if eps <= 0:
        raise InvalidParameterError(f"{name} must be > 0 (the privacy loss); pass e.g. {name}=1.0")
    return eps


def check_delta(delta: Any, name: str = "delta") -> float:
    """Return ``delta`` as a float in the open interval (0, 1).

    >>> check_delta(1e-6)
    1e-06
    """
    d = _as_real(delta, name)
    if not 0.0 < d < 1.0:
        raise InvalidParameterError(
            f"{name} must lie in the open interval (0, 1); pass e.g. {name}=1e-6 "
            "(much smaller than 1/number of records)"
        )
    return d


def check_positive(value: Any, name: str) -> float:
    """Return a finite float > 0 (sensitivities, radii, tolerances).

    >>> check_positive(2, "sensitivity")
    2.0
    """
    v = _as_real(value, name)
    if v <= 0:
        raise InvalidParameterError(f"{name} must be > 0; pass a positive finite number")
    return v


def check_fraction(value: Any, name: str, example: float) -> float:
    """Return a finite float strictly inside ``(0, 1)`` (confidences, significance levels, split fractions).

    >>> check_fraction(0.95, "confidence", 0.95)
    0.95
    """
    v = _as_real(value, name)
    if not 0.0 < v < 1.0:
        raise InvalidParameterError(f"{name} must lie in (0, 1); pass e.g. {name}={example}")
    return v


def check_nonnegative(value: Any, name: str) -> float:
    """Return a finite float >= 0.

    >>> check_nonnegative(0, "radius")
    0.0
    """
    v = _as_real(value, name)
    if v < 0:
        raise InvalidParameterError(f"{name} must be >= 0; pass a non-negative finite number")
    return v


def check_int(value: Any, name: str, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` within [minimum, maximum].

    >>> check_int(3, "k", minimum=1)
    3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise InputTypeError(f"{name} must be an integer; got {type(value).__name__}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise InvalidParameterError(f"{name} must be >= {minimum}; got {v}")
    if maximum is not None and v > maximum:
        raise InvalidParameterError(f"{name} must be <= {maximum}; got {v}")
    return v


def check_choice(value: Any, name: str, choices: tuple[str, ...] | list[str]) -> str:
    """Return ``value`` if it is one of ``choices``.

    >>> check_choice("exact", "method", ("exact", "gaussian"))
    'exact'
    """
    if not isinstance(value, str) or value not in choices:
        raise InvalidParameterError(
            f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {value!r}"
            if isinstance(value, str) else
            f"{name} must be one of {', '.join(repr(c) for c in choices)}; got {type(value).__name__}"
        )
    return value


def check_privacy_params(epsilon: Any, delta: Any, sensitivity: Any = 1.0
                         ) -> tuple[float, float, float]:
    """Validate ``(epsilon, delta, sensitivity)`` together.

    >>> check_privacy_params(1, 1e-6, 1)
    (1.0, 1e-06, 1.0)
    """
    return (check_epsilon(epsilon), check_delta(delta),
            check_positive(sensitivity, "sensitivity"))


# ---------------------------------------------------------------------- arrays


def check_array(x: Any, name: str, *, ndim: int | tuple[int, ...] | None = None,
                shape: tuple[int | None, ...] | None = None, allow_empty: bool = False,
                finite: bool = True, dtype: Any = np.float64, copy: bool = False) -> np.ndarray:
    """Convert ``x`` to a float array and check its shape and finiteness.

    Sparse matrices are refused here (use :func:`check_binary_matrix` for data
    that may be sparse). Strings and objects that do not convert to numbers
    raise :class:`~sosproj.errors.InputTypeError`.

    >>> check_array([1.0, 2.0], name="v", ndim=1).shape
    (2,)
    """
    if sp.issparse(x):
        raise InputTypeError(f"{name} must be a dense array; convert it with {name}.toarray()")
    if isinstance(x, (str, bytes)):
        raise InputTypeError(f"{name} must be a numeric array; got a string")
    try:
        arr = np.array(x, dtype=dtype, copy=True) if copy else np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"{name} must be a numeric array convertible to {np.dtype(dtype).name}") from exc
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise InvalidInputError(
                f"{name} must have {' or '.join(map(str, allowed))} dimension(s); got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise InvalidInputError(f"{name} must have shape {want}; got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise InvalidInputError(f"{name} must not be empty; got shape {arr.shape}")
    if finite and arr.size and not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name} contains NaN or infinite entries; remove or impute them first")
    return arr


def check_square_matrix(x: Any, name: str, *, symmetric: bool = False,
                        sym_tol: float = 1e-8) -> np.ndarray:
    """Return a finite square float matrix; with ``symmetric`` check symmetry.

    >>> check_square_matrix([[1, 0], [0, 1]], "A").shape
    (2, 2)
    """
    arr = check_array(x, name, ndim=2)
    if arr.shape[0] != arr.shape[1]:
        raise InvalidInputError(f"{name} must be a square matrix; got shape {arr.shape}")
    if symmetric:
        scale = max(1.0, float(np.max(np.abs(arr))))
        if np.max(np.abs(arr - arr.T)) > sym_tol * scale:
            raise InvalidInputError(f"{name} must be symmetric; symmetrize it with ({name} + {name}.T) / 2")
    return arr


def check_same_shape(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    """Refuse two arrays of different shapes.

    >>> import numpy as np
    >>> check_same_shape(np.zeros(2), np.ones(2), "X", "Y")
    """
    if a.shape != b.shape:
        raise InvalidInputError(f"{name_a} and {name_b} must have the same shape; got {a.shape} and {b.shape}")


def check_binary_matrix(D: Any, name: str = "D") -> np.ndarray | sp.csr_matrix:
    """Return a 2-D binary data matrix (dense uint8 array or CSR matrix of int8).

    Every entry must be exactly 0 or 1 (boolean, integer or float dtype). The
    message for a violation names the argument, never the offending value or
    its position.

    >>> check_binary_matrix([[0, 1], [1, 1]]).dtype
    dtype('uint8')
    """
    if sp.issparse(D):
        M = sp.csr_matrix(D)
        if M.ndim != 2:
            raise InvalidInputError(f"{name} must be 2-D (rows = records, columns = attributes)")
        if M.shape[0] == 0 or M.shape[1] == 0:
            raise InvalidInputError(f"{name} must have at least one row and one column; got shape {M.shape}")
        data = M.data
        if data.size and (not np.all(np.isfinite(data.astype(float)))):
            raise InvalidInputError(f"{name} contains NaN or infinite entries; data must be 0/1")
        if data.size and not np.all((data == 0) | (data == 1)):
            raise InvalidInputError(
                f"{name} must be binary (entries 0 or 1); binarize it with a public threshold first")
        M = M.astype(np.int8)
        M.eliminate_zeros()
        return M
    if isinstance(D, (str, bytes)):
        raise InputTypeError(f"{name} must be a numeric 2-D array; got a string")
    try:
        arr = np.asarray(D)
    except (TypeError, ValueError) as exc:
        raise InputTypeError(f"{name} must be a numeric 2-D array") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise InputTypeError(f"{name} must have a numeric or boolean dtype; got {arr.dtype}")
    if arr.ndim != 2:
        raise InvalidInputError(
            f"{name} must be 2-D (rows = records, columns = attributes); got {arr.ndim} dimension(s)")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InvalidInputError(f"{name} must have at least one row and one column; got shape {arr.shape}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name} contains NaN or infinite entries; data must be 0/1")
    if not np.all((arr == 0) | (arr == 1)):
        raise InvalidInputError(f"{name} must be binary (entries 0 or 1); binarize it with a public threshold first")
    return arr.astype(np.uint8)


# ---------------------------------------------------------------------- memory


def available_memory_bytes() -> int:
    """Physical memory available to this process (bytes), best effort.

    Reads ``MemAvailable`` from ``/proc/meminfo`` where it exists, otherwise
    total physical memory from ``os.sysconf``.

    >>> available_memory_bytes() > 0
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 1024**3


def format_bytes(n: float) -> str:
    """Human-readable byte count.

    >>> format_bytes(3 * 1024**3)
    '3.0 GiB'
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


#: The default memory budget of :func:`check_memory` is never below this (256 MiB).
MEMORY_FLOOR_BYTES = 256 * 1024**2


def check_memory(estimate_bytes: float, what: str, *, limit_bytes: float | None = None,
                 fraction: float = 0.6) -> None:
    """Refuse work whose estimated memory exceeds the budget, before building it.

    The default budget is ``fraction`` of the currently available memory, but never less than
    :data:`MEMORY_FLOOR_BYTES` (``MemAvailable`` is an instantaneous reading: on a busy machine it
    can dip far below what the work would actually get, and refusing a tiny problem then helps
    nobody). The environment variable ``SOSPROJ_MEMORY_LIMIT`` (bytes) or ``limit_bytes``
    overrides it exactly (no floor).

    >>> check_memory(1024, "a tiny problem")
    """
    try:
        estimate = float(estimate_bytes)
    except (TypeError, ValueError) as exc:
        raise InputTypeError("estimate_bytes must be a number of bytes") from exc
    if math.isnan(estimate) or estimate < 0:
        raise InvalidParameterError("estimate_bytes must be a non-negative number of bytes")
    if math.isinf(estimate):
        raise ResourceLimitError(f"{what} needs an unbounded amount of memory; reduce the size (n, degree, k)",
                                 estimate_bytes=None, limit_bytes=None)
    if limit_bytes is None:
        env = os.environ.get("SOSPROJ_MEMORY_LIMIT")
        limit_bytes = float(env) if env else max(fraction * available_memory_bytes(), MEMORY_FLOOR_BYTES)
    if estimate_bytes > limit_bytes:
        raise ResourceLimitError(
            f"{what} needs an estimated {format_bytes(estimate_bytes)}, more than the "
            f"{format_bytes(limit_bytes)} budget; reduce the size (n, degree, k) or raise "
            "the limit with SOSPROJ_MEMORY_LIMIT (bytes)",
            estimate_bytes=int(estimate_bytes), limit_bytes=int(limit_bytes))


__all__ = [
    "check_epsilon", "check_delta", "check_positive", "check_nonnegative", "check_int",
    "check_choice", "check_privacy_params", "check_array", "check_square_matrix",
    "check_same_shape", "check_binary_matrix", "available_memory_bytes", "format_bytes",
    "check_memory", "MEMORY_FLOOR_BYTES",
]

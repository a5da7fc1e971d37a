"""Cross-cutting policy shared by the solver and set layers: one home for each rule.

* :class:`ConvergenceWarning`: the warning an iterative method emits when it stops
  short of its tolerance and the caller asked for ``on_fail="warn"``;
* :func:`check_on_fail` and :func:`apply_on_fail`: the ``on_fail`` policy
  (``"raise"``: :class:`~sosproj.errors.ProjectionError` carrying the
  diagnostics; ``"warn"``: a :class:`ConvergenceWarning`; ``"return"``: nothing,
  the caller reads the ``converged`` flag). An unconverged point is never passed
  off as exact;
* :func:`check_options`: keyword options that a set, a solver backend or a
  mechanism does not accept are refused with one error class
  (:class:`~sosproj.errors.UnknownOptionError`) and one message shape.

This module sits in the base layer: it imports only :mod:`sosproj.errors`.

Examples
--------
>>> check_options({"tol": 1e-6}, ("tol", "max_iter"), "Box.project")
>>> try:
...     check_options({"tol": 1e-6, "maxiter": 5}, ("tol", "max_iter"), "Box.project")
... except Exception as err:
...     print(type(err).__name__, err)
UnknownOptionError Box.project got unknown option(s) ['maxiter']; accepted options: ['max_iter', 'tol']
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from sosproj.errors import InvalidParameterError, ProjectionError, UnknownOptionError

#: what to do when an iterative method does not converge
OnFail = Literal["raise", "warn", "return"]

#: the accepted values of ``on_fail``
ON_FAIL: tuple[str, ...] = ("raise", "warn", "return")


class ConvergenceWarning(UserWarning):
    """An iterative projection or solve stopped before meeting its tolerance (``on_fail="warn"``)."""


def check_on_fail(on_fail: Any) -> str:
    """Validate an ``on_fail`` value and return it.

    >>> check_on_fail("warn")
    'warn'
    """
    if not isinstance(on_fail, str) or on_fail not in ON_FAIL:
        raise InvalidParameterError("on_fail must be 'raise', 'warn' or 'return'")
    return on_fail


def apply_on_fail(converged: bool, on_fail: Any, message: str,
                  payload: Mapping[str, Any] | None = None, *, stacklevel: int = 3) -> None:
    """Apply the ``on_fail`` policy to the outcome of an iterative method.

    Does nothing when ``converged`` is true or ``on_fail == "return"``; warns with
    ``message`` (a :class:`ConvergenceWarning`) for ``"warn"``; raises
    :class:`~sosproj.errors.ProjectionError` with ``message`` and ``payload`` (the
    diagnostics, with the unconverged point under ``"value"`` where there is one)
    for ``"raise"``.

    >>> apply_on_fail(True, "raise", "never raised")
    >>> try:
    ...     apply_on_fail(False, "raise", "stopped early", {"iterations": 3})
    ... except ProjectionError as err:
    ...     print(err.info["iterations"])
    3
    """
    check_on_fail(on_fail)
    if converged or on_fail == "return":
        return
    if on_fail == "warn":
        warnings.warn(message, ConvergenceWarning, stacklevel=stacklevel)
        return
    raise ProjectionError(message, dict(payload or {}))


def check_options(options: Mapping[str, Any], accepted: Iterable[str], where: str) -> None:
    """Refuse keyword ``options`` that are not in ``accepted``.

    ``where`` names the receiver (``"Box.project"``, ``"solver 'scs'"``); the
    message lists the unknown names and every accepted one, sorted.
    """
    accepted = set(accepted)
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise UnknownOptionError(f"{where} got unknown option(s) {unknown}; accepted options: "
                                 f"{sorted(accepted)}")


__all__ = ["ConvergenceWarning", "OnFail", "ON_FAIL", "check_on_fail", "apply_on_fail", "check_options"]

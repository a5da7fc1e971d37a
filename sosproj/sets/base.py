r"""The :class:`ConvexSet` protocol and the diagnostics every projection reports.

A closed convex set :math:`S` is used through three operations:

* ``project(Y)``: the Euclidean (Frobenius) projection
  :math:`\Pi_S(Y) = \arg\min_{X \in S} \|X - Y\|_F^2`;
* ``support(W)``: the support function :math:`h_S(W) = \sup_{X \in S} \langle W, X\rangle`
  and a maximizer (the quantity whose expectation over Gaussian ``W`` is the
  Gaussian complexity :math:`G(S)` of the paper, Definition "Gaussian complexity");
* ``contains(X, tol)``: membership up to a tolerance.

Subclasses implement ``_project`` (returning the point and a
:class:`ProjectionInfo`), ``_support`` and ``_violation``; the public methods
validate inputs once, here. The keyword options a set accepts are the keyword
parameters of its ``_project`` / ``_support`` hooks; any other option is refused
by :func:`sosproj.policy.check_options` (one error class,
:class:`~sosproj.errors.UnknownOptionError`, one message shape) before any work.
A hook that takes ``**options`` checks them itself, with the same function.

Examples
--------
>>> import numpy as np
>>> from sosproj.sets import Box
>>> S = Box(-1.0, 1.0)
>>> S.project(np.array([2.0, -0.5]))
array([ 1. , -0.5])
>>> X, info = S.project(np.array([2.0]), return_info=True)
>>> info.converged, info.exact
(True, True)
"""

from __future__ import annotations

import inspect
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.policy import ConvergenceWarning, OnFail, apply_on_fail, check_options
from sosproj.threads import with_thread_policy
from sosproj.validation import check_array


@dataclass(frozen=True)
class ProjectionInfo:
    """Diagnostics of one projection.

    Attributes
    ----------
    method : name of the algorithm (``"closed-form"``, ``"dykstra"``, ``"newton"``, ``"scs"``...).
    iterations : iterations (or eigendecompositions, solver iterations) used.
    residual : the stopping quantity reached (algorithm specific, documented by each set).
    converged : whether the stopping rule was met.
    exact : whether the returned point is (to ``residual``) the projection itself, as
        opposed to merely a point of the set (averaged / alternating projections).
    time : wall-clock seconds.
    extra : other solver-specific numbers (duality gap, eigendecomposition count, ...).
    """

    method: str
    iterations: int = 0
    residual: float = 0.0
    converged: bool = True
    exact: bool = True
    time: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Plain-dict view (JSON friendly).

        >>> ProjectionInfo("closed-form").as_dict()["method"]
        'closed-form'
        """
        out = {"method": self.method, "iterations": int(self.iterations),
               "residual": float(self.residual), "converged": bool(self.converged),
               "exact": bool(self.exact), "time": float(self.time)}
        out.update({k: _jsonable(v) for k, v in self.extra.items()})
        return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


@dataclass(frozen=True)
class SupportResult:
    """Value of the support function :math:`\\sup_{X\\in S}\\langle W, X\\rangle` and a maximizer.

    ``maximizer`` is ``None`` when the supremum is infinite (unbounded sets).
    """

    value: float
    maximizer: np.ndarray | None
    info: dict[str, Any] = field(default_factory=dict)


def handle_nonconvergence(info: ProjectionInfo, on_fail: OnFail, what: str,
                          point: np.ndarray | None = None) -> None:
    """Apply the ``on_fail`` policy (:func:`sosproj.policy.apply_on_fail`) to an iterative projection.

    ``"raise"`` raises :class:`~sosproj.errors.ProjectionError` carrying the
    diagnostics (and the unconverged point under ``info["value"]``), ``"warn"``
    emits a :class:`~sosproj.policy.ConvergenceWarning`, ``"return"`` does nothing
    (the caller reads ``info.converged``).

    >>> handle_nonconvergence(ProjectionInfo("x", converged=True), "raise", "test")
    """
    msg = (f"{what} stopped after {info.iterations} iterations with residual "
           f"{info.residual:.3e} above its tolerance (method {info.method!r}); raise "
           "max_iter or loosen tol, or pass on_fail='warn' to accept it")
    payload = info.as_dict()
    if point is not None:
        payload["value"] = point
    apply_on_fail(info.converged, on_fail, msg, payload, stacklevel=4)


@cache
def _hook_options(cls: type, hook: str) -> tuple[str, ...] | None:
    """Keyword options accepted by ``cls.<hook>`` (``None``: the hook checks its own ``**options``)."""
    params = list(inspect.signature(getattr(cls, hook)).parameters.values())[2:]   # self, Y / W
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return tuple(p.name for p in params
                 if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY))


class ConvexSet(ABC):
    """A closed convex subset of a space of real arrays with the Frobenius inner product.

    ``shape`` is the ambient shape when the set fixes it (``None`` when the set
    applies to arrays of any shape, like :class:`~sosproj.sets.Box`).
    ``matrix_set`` is true for sets of (symmetric) square matrices.
    """

    shape: tuple[int, ...] | None = None
    matrix_set: bool = False
    bounded: bool = True

    # -- public API ---------------------------------------------------------
    @with_thread_policy
    def project(self, Y: Any, *, return_info: bool = False, **options: Any
                ) -> np.ndarray | tuple[np.ndarray, ProjectionInfo]:
        """Euclidean projection of ``Y`` onto the set.

        Returns the projected array; with ``return_info=True`` also the
        :class:`ProjectionInfo` diagnostics. Extra keyword options go to the
        algorithm (tolerances, iteration caps, ``on_fail``).
        """
        self._check_options(options, "_project", "project")
        Y = self._check_input(Y, "Y")
        t0 = time.perf_counter()
        X, info = self._project(Y, **options)
        if info.time == 0.0:
            info = ProjectionInfo(info.method, info.iterations, info.residual, info.converged,
                                  info.exact, time.perf_counter() - t0, dict(info.extra))
        return (X, info) if return_info else X

    @with_thread_policy
    def support(self, W: Any, **options: Any) -> SupportResult:
        """Support function :math:`h_S(W)=\\sup_{X\\in S}\\langle W,X\\rangle` and a maximizer."""
        self._check_options(options, "_support", "support")
        W = self._check_input(W, "W")
        return self._support(W, **options)

    @with_thread_policy
    def contains(self, X: Any, tol: float = 1e-8) -> bool:
        """Whether ``X`` lies in the set up to ``tol`` (set-specific violation measure)."""
        X = self._check_input(X, "X")
        if not (isinstance(tol, (int, float)) and tol >= 0):
            raise InvalidParameterError("tol must be a non-negative number")
        return bool(self._violation(X) <= tol)

    def violation(self, X: Any) -> float:
        """A non-negative measure of how far ``X`` is from satisfying the constraints."""
        return float(self._violation(self._check_input(X, "X")))

    # -- hooks ----------------------------------------------------------------
    @abstractmethod
    def _project(self, Y: np.ndarray, **options: Any) -> tuple[np.ndarray, ProjectionInfo]:
        """Return the projection of a validated ``Y`` and its diagnostics."""

    @abstractmethod
    def _support(self, W: np.ndarray, **options: Any) -> SupportResult:
        """Return the support function value at a validated ``W``."""

    @abstractmethod
    def _violation(self, X: np.ndarray) -> float:
        """Return a non-negative constraint-violation measure of a validated ``X``."""

    # -- shared helpers ---------------------------------------------------------
    def _check_options(self, options: dict[str, Any], hook: str, public: str) -> None:
        accepted = _hook_options(type(self), hook)
        if accepted is not None:
            check_options(options, accepted, f"{type(self).__name__}.{public}")

    def _check_input(self, Y: Any, name: str) -> np.ndarray:
        arr = check_array(Y, name, allow_empty=False)
        if self.shape is not None and arr.shape != tuple(self.shape):
            raise InvalidInputError(f"{name} must have shape {tuple(self.shape)} for this set; got {arr.shape}")
        if self.matrix_set and (arr.ndim != 2 or arr.shape[0] != arr.shape[1]):
            raise InvalidInputError(f"{name} must be a square matrix for this set; got shape {arr.shape}")
        return arr

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"{type(self).__name__}()"


def symmetrize(Y: np.ndarray) -> np.ndarray:
    """Symmetric part :math:`(Y + Y^T)/2` of a square matrix.

    For sets of symmetric matrices, the Frobenius projection of a non-symmetric
    ``Y`` equals the projection of its symmetric part (the skew part is
    orthogonal to every symmetric matrix).

    >>> import numpy as np
    >>> symmetrize(np.array([[0.0, 2.0], [0.0, 0.0]]))
    array([[0., 1.],
           [1., 0.]])
    """
    return 0.5 * (Y + Y.T)


__all__ = ["ConvexSet", "ProjectionInfo", "SupportResult", "ConvergenceWarning",
           "handle_nonconvergence", "symmetrize", "OnFail"]

r"""The registry of the paper's claims as executable checks.

Each :class:`Check` carries the claim's statement, its reference in the paper, its
default parameters (``defaults``, the full sweep) and the smaller ``quick`` overrides,
and a function that measures the quantity and returns a :class:`CheckResult` with a
verdict:

* ``"pass"``: the bound holds at the measured sizes (the confidence interval of the
  measured quantity lies below the bound, or the fitted exponent is not above the
  theoretical one);
* ``"fail"``: the measured quantity is significantly above the bound (its interval lies
  above it), or the fitted exponent is significantly above the theoretical one;
* ``"inconclusive"``: the interval straddles the bound;
* ``"skip"``: a dependency (a set, a relaxation, a mechanism) is not available;
* ``"error"``: the check raised; the exception type and message are recorded.

Checks are registered by the modules of :mod:`sosproj.certificates.checks` (one file
per claim) and loaded on first use.

Examples
--------
>>> from sosproj.certificates.registry import list_checks, get_check
>>> "stability" in list_checks()
True
>>> get_check("stability").reference
'Lemma "Stability of projections" (Section 5); errata: constant 1 by firm non-expansiveness'
"""

from __future__ import annotations

import importlib
import math
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.rng import RngLike, as_generator

Verdict = Literal["pass", "fail", "inconclusive", "skip", "error"]
VERDICTS: tuple[str, ...] = ("pass", "fail", "inconclusive", "skip", "error")


class CheckUnavailable(Exception):
    """Raised inside a check when a dependency it needs is missing (verdict ``"skip"``)."""


@dataclass(frozen=True)
class Curve:
    """One curve of a check's plot: measured values (with an interval) or a theoretical rate.

    ``kind`` is ``"measured"``, ``"theory"``, ``"naive"`` or ``"reference"``; ``panel``
    groups curves into subplots.

    >>> Curve("G", [1, 2], [1.0, 2.0]).as_dict()["kind"]
    'measured'
    """

    label: str
    x: list[float]
    y: list[float]
    kind: str = "measured"
    y_low: list[float] | None = None
    y_high: list[float] | None = None
    panel: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view."""
        return {"label": self.label, "x": _floats(self.x), "y": _floats(self.y), "kind": self.kind,
                "y_low": None if self.y_low is None else _floats(self.y_low),
                "y_high": None if self.y_high is None else _floats(self.y_high), "panel": self.panel}


@dataclass(frozen=True)
class Outcome:
    """What a check function returns: verdict, reason and the measurements."""

    verdict: Verdict
    reason: str
    measured: dict[str, Any] = field(default_factory=dict)
    theoretical: dict[str, Any] = field(default_factory=dict)
    table: list[dict[str, Any]] = field(default_factory=list)
    curves: list[Curve] = field(default_factory=list)
    xlabel: str = "n"
    ylabel: str = ""


@dataclass(frozen=True)
class CheckResult:
    """The recorded result of one check: claim, parameters, measurements and verdict.

    ``measured`` holds the measured constants and exponents, ``theoretical`` the
    paper's; ``table`` one row per swept point; ``curves`` what the plot shows.
    """

    name: str
    title: str
    statement: str
    reference: str
    verdict: Verdict
    reason: str
    params: dict[str, Any]
    measured: dict[str, Any] = field(default_factory=dict)
    theoretical: dict[str, Any] = field(default_factory=dict)
    table: list[dict[str, Any]] = field(default_factory=list)
    curves: list[Curve] = field(default_factory=list)
    xlabel: str = "n"
    ylabel: str = ""
    time: float = 0.0

    @property
    def ok(self) -> bool:
        """True unless the verdict is ``"fail"`` or ``"error"``."""
        return self.verdict not in ("fail", "error")

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view (numpy scalars and arrays converted)."""
        return {"name": self.name, "title": self.title, "statement": self.statement,
                "reference": self.reference, "verdict": self.verdict, "reason": self.reason,
                "params": jsonable(self.params), "measured": jsonable(self.measured),
                "theoretical": jsonable(self.theoretical), "table": jsonable(self.table),
                "curves": [c.as_dict() for c in self.curves], "xlabel": self.xlabel,
                "ylabel": self.ylabel, "time": float(self.time)}


CheckFunction = Callable[[dict[str, Any], np.random.Generator, "bool | None"], Outcome]


@dataclass(frozen=True)
class Check:
    """A registered claim of the paper, runnable as ``check.run(params, rng=...)``."""

    name: str
    title: str
    statement: str
    reference: str
    func: CheckFunction = field(repr=False)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)

    def resolve_params(self, params: Mapping[str, Any] | None = None, quick: bool = False
                       ) -> dict[str, Any]:
        """Defaults, then the quick overrides (if ``quick``), then ``params``; unknown keys refused."""
        out = dict(self.defaults)
        if quick:
            out.update(self.quick)
        for key, value in dict(params or {}).items():
            if key not in self.defaults:
                raise InvalidParameterError(
                    f"check {self.name!r} has no parameter {key!r}; known: {', '.join(sorted(self.defaults))}")
            out[key] = value
        return out

    def run(self, params: Mapping[str, Any] | None = None, *, quick: bool = False,
            rng: RngLike = None, progress: bool | None = None) -> CheckResult:
        """Run the check; missing dependencies give ``"skip"``, exceptions ``"error"``."""
        resolved = self.resolve_params(params, quick)
        gen = as_generator(rng)
        t0 = time.perf_counter()
        try:
            out = self.func(resolved, gen, progress)
        except CheckUnavailable as exc:
            out = Outcome("skip", f"not available: {exc}")
        except Exception as exc:  # a check must not take the suite down
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            out = Outcome("error", f"the check raised {tb}")
        return CheckResult(self.name, self.title, self.statement, self.reference, out.verdict,
                           out.reason, resolved, out.measured, out.theoretical, out.table,
                           list(out.curves), out.xlabel, out.ylabel, time.perf_counter() - t0)


REGISTRY: dict[str, Check] = {}
_LOADED = False


def register(name: str, *, title: str, statement: str, reference: str,
             defaults: Mapping[str, Any], quick: Mapping[str, Any] | None = None
             ) -> Callable[[CheckFunction], CheckFunction]:
    """Decorator registering a check function under ``name``."""

    def deco(func: CheckFunction) -> CheckFunction:
        unknown = set(quick or {}) - set(defaults)
        if unknown:
            raise InvalidParameterError(f"quick overrides of {name!r} name unknown parameters")
        REGISTRY[name] = Check(name, title, statement, reference, func, dict(defaults), dict(quick or {}))
        return func

    return deco


def _load() -> None:
    global _LOADED
    if not _LOADED:
        importlib.import_module("sosproj.certificates.checks")
        _LOADED = True


def list_checks() -> list[str]:
    """Names of the registered checks, in registration order.

    >>> len(list_checks()) >= 7
    True
    """
    _load()
    return list(REGISTRY)


def get_check(name: str) -> Check:
    """The registered :class:`Check` called ``name``.

    >>> get_check("stability").title
    'Stability of projections'
    """
    _load()
    if name not in REGISTRY:
        raise InvalidParameterError(f"no check named {name!r}; known checks: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def run_check(name: str, params: Mapping[str, Any] | None = None, *, quick: bool = False,
              rng: RngLike = None, progress: bool | None = None) -> CheckResult:
    """Run the registered check ``name`` (see :meth:`Check.run`)."""
    return get_check(name).run(params, quick=quick, rng=rng, progress=progress)


# ------------------------------------------------------------------ verdict helpers


def bound_verdict(ci_low: float, ci_high: float, bound: float) -> Verdict:
    """Verdict of a claim "E[Q] <= bound" from the confidence interval of E[Q].

    >>> bound_verdict(0.5, 0.9, 1.0), bound_verdict(1.1, 1.3, 1.0), bound_verdict(0.9, 1.1, 1.0)
    ('pass', 'fail', 'inconclusive')
    """
    if ci_high <= bound:
        return "pass"
    if ci_low > bound:
        return "fail"
    return "inconclusive"


def exponent_verdict(ci_low: float, estimate: float, theory: float, slack: float = 0.0) -> Verdict:
    """Verdict of a claim "the quantity grows at most like n^theory" from a fitted exponent.

    ``fail`` when the whole interval lies above ``theory + slack``, ``pass`` when the point
    estimate is at most ``theory + slack``, ``inconclusive`` otherwise. ``slack`` absorbs
    pre-asymptotic curvature at small sizes and is recorded in the report.

    >>> exponent_verdict(0.6, 0.7, 0.75), exponent_verdict(0.9, 1.0, 0.75), exponent_verdict(0.7, 0.8, 0.75)
    ('pass', 'fail', 'inconclusive')
    """
    if math.isfinite(ci_low) and ci_low > theory + slack:
        return "fail"
    if estimate <= theory + slack:
        return "pass"
    return "inconclusive"


def combine(verdicts: list[Verdict]) -> Verdict:
    """Worst verdict of several sub-claims (error > fail > inconclusive > pass > skip).

    >>> combine(["pass", "inconclusive"]), combine(["pass", "fail"]), combine(["skip", "skip"])
    ('inconclusive', 'fail', 'skip')
    """
    order = ["error", "fail", "inconclusive", "pass", "skip"]
    for v in order:
        if v in verdicts:
            return v  # type: ignore[return-value]
    return "skip"


# ------------------------------------------------------------------ JSON helpers


def _floats(seq: Any) -> list[float | None]:
    return [None if (v is None or not math.isfinite(float(v))) else float(v) for v in seq]


def jsonable(v: Any) -> Any:
    """Convert numpy scalars/arrays and tuples to plain JSON types; non-finite floats to ``None``.

    >>> jsonable({"a": np.float64(1.5), "b": (np.int64(2), float("nan"))})
    {'a': 1.5, 'b': [2, None]}
    """
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return jsonable(v.tolist())
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else None
    return v


__all__ = ["Check", "CheckResult", "CheckUnavailable", "Curve", "Outcome", "REGISTRY", "VERDICTS",
           "Verdict", "bound_verdict", "combine", "exponent_verdict", "get_check", "jsonable",
           "list_checks", "register", "run_check"]

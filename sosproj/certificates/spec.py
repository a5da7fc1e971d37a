r"""Declarative certificate suites: TOML spec -> run -> report (JSON + PNG plots).

A spec names the checks of the registry to run and their parameters::

    [suite]
    name = "quick"                 # the report folder name
    description = "..."
    seed = 2024                    # every check gets its own stream derived from it
    quick = true                   # default of run_spec(quick=None): use each check's quick sizes

    [[checks]]
    name = "stability"             # a registered check (see list_checks())
    params = { trials = 60 }       # overrides over the defaults (and quick sizes)

:func:`run_spec` runs them in order and returns a :class:`Report`, written to
``out_dir`` (default: ``<spec folder>/reports/<suite name>``) as ``report.json`` and
one ``<check>.png`` per check (measured against theoretical curves, log-log).
Each check's random stream depends only on the suite seed and the check's name, so
adding or reordering checks does not change the others' numbers.

Examples
--------
>>> import pathlib, tempfile
>>> from sosproj.certificates import run_spec
>>> tmp = pathlib.Path(tempfile.mkdtemp())
>>> _ = (tmp / "s.toml").write_text('''
... [suite]
... name = "demo"
... seed = 1
... [[checks]]
... name = "stability"
... params = { n = 3, sets = ["box"], sigmas = [0.3], trials = 20 }
... ''')
>>> report = run_spec(tmp / "s.toml", out_dir=tmp / "out", quick=True, progress=False, plots=False)
>>> report.results[0].verdict, (tmp / "out" / "report.json").exists()
('pass', True)
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sosproj.certificates.progress import progress_bar
from sosproj.certificates.registry import CheckResult, Curve, get_check, jsonable
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError

_SUITE_KEYS = {"name", "description", "seed", "quick"}
_CHECK_KEYS = {"name", "params", "enabled"}


def _load_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ImportError as exc:
            raise ImportError("reading TOML specs on Python 3.10 needs tomli: pip install tomli") from exc
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"spec {path.name} is not valid TOML: {exc}") from exc


@dataclass(frozen=True)
class SpecEntry:
    """One ``[[checks]]`` entry of a spec."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Spec:
    """A parsed, validated suite spec.

    >>> Spec.from_dict({"suite": {"name": "x"}, "checks": [{"name": "stability"}]}).checks[0].name
    'stability'
    """

    name: str
    checks: tuple[SpecEntry, ...]
    seed: int = 0
    quick: bool = False
    description: str = ""
    path: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: str | None = None) -> Spec:
        """Validate a spec given as a dict (the parsed TOML)."""
        unknown = set(data) - {"suite", "checks"}
        if unknown:
            raise InvalidInputError(f"unknown top-level spec keys {sorted(unknown)}; use [suite] and [[checks]]")
        suite = data.get("suite", {})
        if not isinstance(suite, dict):
            raise InvalidInputError("[suite] must be a table")
        bad = set(suite) - _SUITE_KEYS
        if bad:
            raise InvalidInputError(f"unknown [suite] keys {sorted(bad)}; known: {sorted(_SUITE_KEYS)}")
        name = suite.get("name", Path(path).stem if path else "suite")
        if not isinstance(name, str) or not name or any(ch in name for ch in "/\\"):
            raise InvalidInputError("[suite] name must be a non-empty string without path separators")
        seed = suite.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise InvalidInputError("[suite] seed must be a non-negative integer")
        quick = suite.get("quick", False)
        if not isinstance(quick, bool):
            raise InvalidInputError("[suite] quick must be true or false")
        entries = data.get("checks", [])
        if not isinstance(entries, list) or not entries:
            raise InvalidInputError("the spec must list at least one [[checks]] entry")
        checks = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or "name" not in entry:
                raise InvalidInputError(f"[[checks]] entry {i} needs a name")
            bad = set(entry) - _CHECK_KEYS
            if bad:
                raise InvalidInputError(f"[[checks]] entry {entry['name']!r} has unknown keys {sorted(bad)}")
            if entry.get("enabled", True) is False:
                continue
            params = entry.get("params", {})
            if not isinstance(params, dict):
                raise InvalidInputError(f"params of check {entry['name']!r} must be a table")
            check = get_check(str(entry["name"]))
            check.resolve_params(params)  # refuses unknown parameter names now, not mid-run
            checks.append(SpecEntry(check.name, dict(params)))
        return cls(name, tuple(checks), int(seed), quick, str(suite.get("description", "")), path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Spec:
        """Read and validate a TOML spec file."""
        p = Path(path)
        if not p.is_file():
            raise InvalidInputError(f"spec file {p} does not exist; pass the path of a .toml spec")
        return cls.from_dict(_load_toml(p), str(p))


def environment() -> dict[str, Any]:
    """Versions and machine facts recorded with every report (no data, no paths).

    >>> "numpy" in environment()["packages"]
    True
    """
    pkgs: dict[str, str] = {}
    for mod in ("sosproj", "numpy", "scipy", "cvxpy", "scs", "clarabel", "joblib"):
        try:
            pkgs[mod] = str(getattr(__import__(mod), "__version__", "?"))
        except ImportError:
            pkgs[mod] = "not installed"
    return {"python": platform.python_version(), "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(), "packages": pkgs}


@dataclass(frozen=True)
class Report:
    """The results of a suite run, serializable with :meth:`to_json`.

    ``files`` maps each check name to its plot file (relative to ``out_dir``).
    """

    suite: str
    description: str
    quick: bool
    seed: int
    results: tuple[CheckResult, ...]
    started: str
    duration: float
    environment: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    out_dir: str | None = None

    @property
    def ok(self) -> bool:
        """No check failed or raised."""
        return all(r.ok for r in self.results)

    def counts(self) -> dict[str, int]:
        """Number of checks per verdict."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly view of the whole report."""
        return {"suite": self.suite, "description": self.description, "quick": self.quick,
                "seed": self.seed, "started": self.started, "duration": self.duration,
                "ok": self.ok, "counts": self.counts(), "environment": jsonable(self.environment),
                "files": dict(self.files), "results": [r.as_dict() for r in self.results]}

    def to_json(self, indent: int = 2) -> str:
        """The report as a JSON string (strict JSON: non-finite numbers become null)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def summary(self) -> str:
        """A plain-text table: check, verdict, seconds, reason."""
        lines = [f"suite {self.suite!r} ({'quick' if self.quick else 'full'}): "
                 + ", ".join(f"{k}={v}" for k, v in sorted(self.counts().items()))
                 + f" in {self.duration:.1f} s"]
        for r in self.results:
            lines.append(f"  {r.name:<14} {r.verdict:<12} {r.time:7.1f} s  {r.reason}")
        return "\n".join(lines)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """Rebuild a report from :meth:`to_dict` output (e.g. a recorded ``report.json``)."""
        results = []
        for r in data["results"]:
            curves = [Curve(c["label"], c["x"], c["y"], c["kind"], c.get("y_low"), c.get("y_high"),
                            c.get("panel", "")) for c in r.get("curves", [])]
            results.append(CheckResult(r["name"], r["title"], r["statement"], r["reference"], r["verdict"],
                                       r["reason"], r["params"], r["measured"], r["theoretical"],
                                       r["table"], curves, r.get("xlabel", "n"), r.get("ylabel", ""),
                                       r.get("time", 0.0)))
        return cls(data["suite"], data.get("description", ""), data["quick"], data["seed"],
                   tuple(results), data["started"], data["duration"], data.get("environment", {}),
                   data.get("files", {}))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Report:
        """Read a recorded ``report.json``."""
        with open(path, encoding="utf-8") as fh:
            return cls.from_dict(json.load(fh))


# ----------------------------------------------------------------------------- plots

_STYLE = {"measured": {"marker": "o", "linestyle": "-"}, "theory": {"linestyle": "--"},
          "naive": {"linestyle": ":"}, "reference": {"linestyle": "-."}}


def _draw_panel(ax: Any, curves: list[Curve], result: CheckResult) -> None:
    positive = True
    for c in curves:
        x = np.asarray(c.x, dtype=float)
        y = np.asarray([np.nan if v is None else v for v in c.y], dtype=float)
        positive &= bool(np.all(x[np.isfinite(x)] > 0) and np.all(y[np.isfinite(y)] > 0))
        style = _STYLE.get(c.kind, {})
        if c.kind == "measured" and c.y_low is not None and c.y_high is not None:
            lo = np.asarray([np.nan if v is None else v for v in c.y_low], dtype=float)
            hi = np.asarray([np.nan if v is None else v for v in c.y_high], dtype=float)
            ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], capsize=3,
                        label=c.label, **style)
        else:
            ax.plot(x, y, label=c.label, **style)
    if positive:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(result.xlabel)
    ax.set_ylabel(result.ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def plot_result(result: CheckResult, path: str | os.PathLike[str]) -> bool:
    """Write ``result``'s curves (log-log, measured with intervals) to a PNG; False if none."""
    if not result.curves:
        return False
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels: list[str] = []
    for c in result.curves:
        if c.panel not in panels:
            panels.append(c.panel)
    fig = Figure(figsize=(5.2 * len(panels), 4.2), dpi=110)
    FigureCanvasAgg(fig)
    for i, panel in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        _draw_panel(ax, [c for c in result.curves if c.panel == panel], result)
        ax.set_title(f"{result.title} [{result.verdict}]" if len(panels) == 1 else panel, fontsize=9)
    if len(panels) > 1:
        fig.suptitle(f"{result.title} [overall: {result.verdict}]", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.fspath(path))
    return True


def write_report(report: Report, out_dir: str | os.PathLike[str], plots: bool = True) -> Report:
    """Write ``report.json`` (and one PNG per check if ``plots``) into ``out_dir``; return the report."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for r in report.results:
        name = f"{r.name}.png"
        if plots and plot_result(r, out / name):
            files[r.name] = name
    final = Report(report.suite, report.description, report.quick, report.seed, report.results,
                   report.started, report.duration, report.environment, files, str(out))
    (out / "report.json").write_text(final.to_json() + "\n", encoding="utf-8")
    return final


def _fmt(v: Any) -> str:
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v):
        return f"[{v[0]:.3g}, {v[1]:.3g}]"
    if isinstance(v, float):
        return f"{v:.3g}"
    return "" if v is None else str(v)


def markdown_summary(report: Report, image_prefix: str | None = None) -> str:
    """A markdown table of a report: verdict, measured against theoretical constants and exponents.

    ``image_prefix`` (a folder, relative to the page) adds the plots below the table.

    >>> r = Report("s", "", True, 0, (), "2026-01-01T00:00:00+00:00", 1.0)
    >>> markdown_summary(r).splitlines()[0]
    '| check | verdict | measured | theory | time (s) |'
    """
    lines = ["| check | verdict | measured | theory | time (s) |", "|---|---|---|---|---|"]
    for r in report.results:
        meas = "; ".join(f"{k} = {_fmt(v)}" for k, v in r.measured.items()
                         if (k.startswith(("constant", "exponent", "ratio")) or k.endswith("exponent"))
                         and not isinstance(v, dict))
        theo = "; ".join(f"{k} = {_fmt(v)}" for k, v in r.theoretical.items()
                         if isinstance(v, (int, float, str)) and not isinstance(v, bool))
        lines.append(f"| `{r.name}` | **{r.verdict}** | {meas} | {theo} | {r.time:.1f} |")
    if image_prefix is not None:
        for r in report.results:
            if r.name in report.files:
                lines += ["", f"![{r.title}]({image_prefix.rstrip('/')}/{report.files[r.name]})"]
    return "\n".join(lines)


def _check_seed(seed: int, name: str) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, zlib.crc32(name.encode())])


def run_spec(path: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None,
             quick: bool | None = None, progress: bool | None = None, *,
             only: Sequence[str] | None = None, plots: bool = True) -> Report:
    """Run the suite described by the TOML spec at ``path`` and write its report.

    Parameters
    ----------
    path : the ``.toml`` spec.
    out_dir : where ``report.json`` and the plots go (default ``<spec folder>/reports/<suite name>``).
    quick : use each check's quick sizes (``None``: the spec's ``[suite] quick``).
    progress : progress bars (``None``: only on a terminal).
    only : run only these checks of the spec (by name).
    plots : write the PNG plots (``report.json`` is always written).

    Returns
    -------
    Report : results of every check (verdicts, measured constants and exponents).
    """
    spec = Spec.load(path)
    if quick is not None and not isinstance(quick, bool):
        raise InputTypeError("quick must be None, True or False")
    use_quick = spec.quick if quick is None else quick
    entries = list(spec.checks)
    if only is not None:
        names = {e.name for e in entries}
        missing = [n for n in only if n not in names]
        if missing:
            raise InvalidParameterError(f"checks {missing} are not in the spec; it lists {sorted(names)}")
        entries = [e for e in entries if e.name in set(only)]
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    results = []
    with progress_bar(total=len(entries), desc=f"suite {spec.name}", enabled=progress) as bar:
        for entry in entries:
            bar.set_postfix_str(entry.name)
            check = get_check(entry.name)
            results.append(check.run(entry.params, quick=use_quick, rng=_check_seed(spec.seed, entry.name),
                                     progress=progress))
            bar.update(1)
    report = Report(spec.name, spec.description, use_quick, spec.seed, tuple(results), started,
                    time.perf_counter() - t0, environment())
    target = Path(out_dir) if out_dir is not None else Path(path).parent / "reports" / spec.name
    return write_report(report, target, plots=plots)


__all__ = ["Report", "Spec", "SpecEntry", "environment", "markdown_summary", "plot_result", "run_spec",
           "write_report"]

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
``out_dir`` as ``report.json`` and one ``<check>.png`` per check (measured against
theoretical curves, log-log). The default ``out_dir`` is a new folder,
``./sosproj-certify/<suite name>-<UTC time>`` (:func:`default_out_dir`): a run never
writes into the recorded reports of the repository (``certificates/reports/``) unless
told to. With ``on_line``, the run reports its progress as plain lines
(:class:`~sosproj.certificates.progress.SuiteProgress`: start and end of each check,
elapsed time, an estimate of the time left from a recorded report, and a line at least
every 30 s). :func:`compare_reports` sets a run against a recorded report.
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
import math
import os
import platform
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sosproj.certificates.progress import SuiteProgress, progress_bar
from sosproj.certificates.registry import CheckResult, Curve, get_check, jsonable
from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.threads import with_thread_policy

_SUITE_KEYS = {"name", "description", "seed", "quick"}
#: the verdicts every summary counts (a check may also be skipped: "skip")
COUNTED_VERDICTS = ("pass", "fail", "inconclusive", "error")
#: folder, under the working directory, of the default report folders
DEFAULT_REPORTS_DIR = "sosproj-certify"
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

    @property
    def verdict(self) -> str:
        """``"PASS"`` when every check passed, ``"FAIL"`` when one failed or raised, else ``"INCONCLUSIVE"``.

        >>> Report("s", "", True, 0, (), "", 0.0).verdict  # no check: nothing was shown
        'INCONCLUSIVE'
        """
        if not self.ok:
            return "FAIL"
        if self.results and all(r.verdict == "pass" for r in self.results):
            return "PASS"
        return "INCONCLUSIVE"

    def counts(self) -> dict[str, int]:
        """Number of checks per verdict: always ``pass``, ``fail``, ``inconclusive``, ``error`` (and others seen).

        >>> Report("s", "", True, 0, (), "", 0.0).counts()
        {'pass': 0, 'fail': 0, 'inconclusive': 0, 'error': 0}
        """
        out: dict[str, int] = {v: 0 for v in COUNTED_VERDICTS}
        for r in self.results:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly view of the whole report."""
        return {"suite": self.suite, "description": self.description, "quick": self.quick,
                "seed": self.seed, "started": self.started, "duration": self.duration,
                "ok": self.ok, "verdict": self.verdict, "counts": self.counts(),
                "environment": jsonable(self.environment),
                "files": dict(self.files), "results": [r.as_dict() for r in self.results]}

    def to_json(self, indent: int = 2) -> str:
        """The report as a JSON string (strict JSON: non-finite numbers become null)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def summary(self) -> str:
        """A plain-text table: overall verdict and counts, then check, verdict, seconds, reason.

        >>> print(Report("s", "", True, 0, (), "", 2.0).summary())
        suite 's' (quick): INCONCLUSIVE -- pass 0, fail 0, inconclusive 0, error 0 in 2.0 s
        """
        lines = [f"suite {self.suite!r} ({'quick' if self.quick else 'full'}): {self.verdict} -- "
                 + ", ".join(f"{k} {v}" for k, v in self.counts().items())
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
    previous = out / "report.json"
    if previous.is_file():  # a rerun into a report folder: drop the plots of the old report
        try:
            old = json.loads(previous.read_text(encoding="utf-8")).get("files", {})
        except (OSError, ValueError):
            old = {}
        for name in old.values():
            stale = out / str(name)
            if stale.parent == out and stale.suffix == ".png" and stale.is_file():
                stale.unlink()
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


@with_thread_policy
def default_out_dir(suite: str, root: str | os.PathLike[str] | None = None) -> Path:
    """A new report folder ``<root>/sosproj-certify/<suite>-<UTC time>`` (root: the working directory).

    The name is unique: a numbered suffix is added when the folder exists.

    >>> import tempfile
    >>> d = default_out_dir("quick", tempfile.mkdtemp())
    >>> d.parent.name, d.name.startswith("quick-"), d.exists()
    ('sosproj-certify', True, False)
    """
    base = Path(root if root is not None else os.getcwd()) / DEFAULT_REPORTS_DIR
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    candidate = base / f"{suite}-{stamp}"
    i = 2
    while candidate.exists():
        candidate = base / f"{suite}-{stamp}-{i}"
        i += 1
    return candidate


def recorded_times(report: Report | None) -> dict[str, float]:
    """Seconds per check of a recorded report (the estimates of a new run); empty for ``None``.

    >>> recorded_times(None)
    {}
    """
    if report is None:
        return {}
    return {r.name: float(r.time) for r in report.results if r.time and r.time > 0}


def _recorded_report(path: Path, name: str, quick: bool) -> Report | None:
    """The report recorded next to the spec (``reports/<name>/report.json``), if it has the same sizes."""
    candidate = path.parent / "reports" / name / "report.json"
    try:
        rep = Report.load(candidate)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rep if rep.quick == quick else None


def compare_reports(report: Report, reference: Report, rtol: float = 0.25) -> list[dict[str, Any]]:
    """Check by check: this run's verdict and time against a recorded report's, and the measured
    numbers (constants, exponents, ratios) that moved by more than ``rtol`` (relative).

    Each row: ``check``, ``verdict``, ``reference_verdict``, ``time``, ``reference_time``,
    ``changed`` (verdict differs), ``moved`` (``{key: [now, recorded]}``). Checks of
    only one of the two reports appear with ``None`` on the other side.

    >>> from sosproj.certificates.registry import CheckResult
    >>> def res(v, c):
    ...     return CheckResult("c", "t", "s", "r", v, "", {}, {"constant": c}, {}, [], [], "n", "", 1.0)
    >>> a = Report("s", "", True, 0, (res("pass", 1.0),), "", 1.0)
    >>> b = Report("s", "", True, 0, (res("fail", 2.0),), "", 1.0)
    >>> row = compare_reports(a, b)[0]
    >>> row["changed"], row["moved"]
    (True, {'constant': [1.0, 2.0]})
    """
    ref = {r.name: r for r in reference.results}
    now = {r.name: r for r in report.results}
    rows = []
    for name in list(now) + [n for n in ref if n not in now]:
        a, b = now.get(name), ref.get(name)
        moved: dict[str, list[float]] = {}
        if a is not None and b is not None:
            for key, va in a.measured.items():
                vb = b.measured.get(key)
                if (isinstance(va, (int, float)) and isinstance(vb, (int, float))
                        and not isinstance(va, bool) and not isinstance(vb, bool)
                        and math.isfinite(va) and math.isfinite(vb)
                        and abs(va - vb) > rtol * max(abs(vb), 1e-12)):
                    moved[key] = [float(va), float(vb)]
        rows.append({"check": name, "verdict": None if a is None else a.verdict,
                     "reference_verdict": None if b is None else b.verdict,
                     "time": None if a is None else float(a.time),
                     "reference_time": None if b is None else float(b.time),
                     "changed": (a is None) or (b is None) or a.verdict != b.verdict, "moved": moved})
    return rows


def format_comparison(rows: list[dict[str, Any]], reference_name: str = "reference") -> str:
    """The rows of :func:`compare_reports` as a plain-text table.

    >>> print(format_comparison([{"check": "c", "verdict": "pass", "reference_verdict": "pass",
    ...     "time": 1.0, "reference_time": 2.0, "changed": False, "moved": {}}]))
    check  verdict  reference    time (s)  reference (s)  measured numbers moved by > 25%
    c      pass     pass              1.0            2.0  -
    """
    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    header = ["check", "verdict", reference_name, "time (s)", "reference (s)",
              "measured numbers moved by > 25%"]
    body = []
    for r in rows:
        moved = "; ".join(f"{k} {v[0]:.3g} (was {v[1]:.3g})" for k, v in r["moved"].items()) or "-"
        verdict = (r["verdict"] or "-") + (" (changed)" if r["changed"] else "")
        body.append([r["check"], verdict, r["reference_verdict"] or "-", num(r["time"]),
                     num(r["reference_time"]), moved])
    widths = [max(len(str(x)) for x in col) for col in zip(header, *body)]
    right = {3, 4}

    def line(cells: list[str]) -> str:
        return "  ".join(str(c).rjust(w) if i in right else str(c).ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(header)] + [line(b) for b in body])


def run_spec(path: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None,
             quick: bool | None = None, progress: bool | None = None, *,
             only: Sequence[str] | None = None, plots: bool = True,
             on_line: Callable[[str], None] | None = None, interval: float = 30.0,
             recorded: Mapping[str, float] | None = None) -> Report:
    """Run the suite described by the TOML spec at ``path`` and write its report.

    Parameters
    ----------
    path : the ``.toml`` spec.
    out_dir : where ``report.json`` and the plots go (default: a new folder,
        :func:`default_out_dir`; never the recorded reports next to the spec).
    quick : use each check's quick sizes (``None``: the spec's ``[suite] quick``).
    progress : progress bars (``None``: only on a terminal).
    only : run only these checks of the spec (by name).
    plots : write the PNG plots (``report.json`` is always written).
    on_line : called with each progress line (start and end of every check, elapsed time,
        estimate of the time left, and a line at least every ``interval`` seconds).
    interval : the longest silence of ``on_line`` while a check runs, in seconds.
    recorded : seconds per check of an earlier run, for the estimates (default: the report
        recorded next to the spec, ``reports/<suite name>/report.json``, when its sizes match).

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
    target = Path(out_dir) if out_dir is not None else default_out_dir(spec.name)
    if recorded is None:
        recorded = recorded_times(_recorded_report(Path(path), spec.name, use_quick))
    lines = SuiteProgress([e.name for e in entries], recorded, on_line or (lambda _line: None),
                          interval=interval)
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    results = []
    with progress_bar(total=len(entries), desc=f"suite {spec.name}", enabled=progress) as bar:
        for i, entry in enumerate(entries):
            bar.set_postfix_str(entry.name)
            check = get_check(entry.name)
            if on_line is None:
                result = check.run(entry.params, quick=use_quick, rng=_check_seed(spec.seed, entry.name),
                                   progress=progress)
            else:
                with lines.check(i):
                    result = check.run(entry.params, quick=use_quick, rng=_check_seed(spec.seed, entry.name),
                                       progress=progress)
                    lines.done(i, result.verdict)
            results.append(result)
            bar.update(1)
    report = Report(spec.name, spec.description, use_quick, spec.seed, tuple(results), started,
                    time.perf_counter() - t0, environment())
    return write_report(report, target, plots=plots)


__all__ = ["COUNTED_VERDICTS", "DEFAULT_REPORTS_DIR", "Report", "Spec", "SpecEntry", "compare_reports",
           "default_out_dir", "environment", "format_comparison", "markdown_summary", "plot_result",
           "recorded_times", "run_spec", "write_report"]

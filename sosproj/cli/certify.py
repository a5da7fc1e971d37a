"""``sosproj certify [SPEC ...] [--out DIR] [--quick | --full] [--only CHECK]``.

Runs certificate specs with :func:`sosproj.certificates.run_spec`. A spec (a
TOML file, see ``docs/certificates.md``) lists checks of the paper's bounds --
Gaussian-complexity estimates with confidence intervals, error rates against
the theoretical exponents. Without SPEC, every ``*.toml`` spec in
``./certificates/`` is run.

While it runs, ``certify`` writes progress lines on stderr: when each check starts
and ends (verdict, time, the suite's elapsed time and an estimate of the time left,
from the recorded report next to the spec or ``--reference``), and a line at least
every 30 s (``--interval``) while a check runs. It ends with a summary that counts
pass / fail / inconclusive / error and an overall verdict: PASS only when every
check passed, FAIL when one failed or raised, else INCONCLUSIVE.

Each spec's report (``report.json`` and one PNG per check) goes to a new folder,
``./sosproj-certify/<suite name>-<UTC time>``, or to ``--out`` (``--out/<suite name>``
when several specs run); a non-empty ``--out`` needs ``--force``. The recorded
reports of the repository (``certificates/reports/``) are only written when named
with ``--out ... --force``. ``--reference REPORT`` compares the run with a recorded
report, check by check.

Exit code 0 when no check failed or raised (PASS or INCONCLUSIVE), 1 when a check
failed or raised (the report says which), 2 for a missing or malformed spec or
reference, or an unusable ``--out``, 3 for a solver failure.

Examples
--------
>>> from sosproj.cli.main import build_parser
>>> args = build_parser().parse_args(["certify", "spec.toml", "--quick", "--only", "stability"])
>>> args.spec, args.quick, args.only
(['spec.toml'], True, ['stability'])
"""

from __future__ import annotations

import argparse
import glob
import os
from typing import Any

from sosproj.cli.io import OutputError
from sosproj.cli.output import Console
from sosproj.errors import InvalidInputError, InvalidParameterError

SPEC_SUFFIXES = (".toml",)


def find_specs(folder: str = "certificates") -> list[str]:
    """Spec files (``*.toml``) in ``folder``, sorted.

    >>> find_specs("/nonexistent-folder")
    []
    """
    if not os.path.isdir(folder):
        return []
    return sorted(p for p in glob.glob(os.path.join(folder, "*")) if p.lower().endswith(SPEC_SUFFIXES))


def _check_out(out_dir: str, force: bool) -> None:
    """Refuse an unusable ``--out`` before anything runs (a file, unwritable, or a non-empty folder)."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise OutputError(f"--out: {out_dir} exists and is not a directory; choose another path")
    if os.path.isdir(out_dir) and os.listdir(out_dir) and not force:
        raise OutputError(f"--out: {out_dir} is not empty; choose a new folder, or pass --force to "
                          "replace the report in it (its old plots are removed)")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out: cannot create {out_dir} ({exc.strerror}); "
                          "choose a writable path") from exc


def _load_reference(path: str) -> Any:
    from sosproj.certificates.spec import Report

    if os.path.isdir(path):
        path = os.path.join(path, "report.json")
    if not os.path.isfile(path):
        raise InvalidInputError(f"--reference: {path} not found; pass a recorded report.json "
                                "(or its folder), e.g. certificates/reports/quick/report.json")
    try:
        return Report.load(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInputError(f"--reference: {path} is not a sosproj certificate report "
                                f"({type(exc).__name__}); pass a report.json written by sosproj certify") from exc


def run(args: argparse.Namespace, console: Console) -> int:
    """Run each spec with :func:`sosproj.certificates.run_spec`; exit code 0 unless a check failed or raised.

    Specs, ``--out`` and ``--reference`` are validated before anything runs:

    >>> from sosproj.cli.main import build_parser
    >>> run(build_parser().parse_args(["certify", "missing.toml"]), Console(quiet=True))
    Traceback (most recent call last):
    ...
    sosproj.errors.InvalidInputError: certify: spec file not found: missing.toml; check the path
    """
    specs = list(args.spec) or find_specs()
    if not specs:
        raise InvalidInputError("certify: no SPEC given and no spec files in ./certificates; "
                                "pass a spec path (see docs/certificates.md)")
    for s in specs:
        if not os.path.isfile(s):
            raise InvalidInputError(f"certify: spec file not found: {s}; check the path")
    from sosproj.certificates.spec import (
        Spec,
        compare_reports,
        default_out_dir,
        format_comparison,
        recorded_times,
        run_spec,
    )

    parsed = [Spec.load(s) for s in specs]  # malformed specs are refused before any check runs
    reference = _load_reference(args.reference) if args.reference else None
    if args.interval is not None and not args.interval > 0:
        raise InvalidParameterError("--interval must be > 0 seconds")
    out_dir = args.out
    if out_dir is not None:
        _check_out(out_dir, args.force)
    else:
        out_dir = os.fspath(default_out_dir(parsed[0].name if len(parsed) == 1 else "certify"))
    quick = True if args.quick else (False if args.full else None)
    results = []
    all_ok = True
    verdicts = []
    for spec, parsed_spec in zip(specs, parsed):
        target = out_dir if len(specs) == 1 else os.path.join(out_dir, parsed_spec.name)
        console.note(f"certify: running {spec}{' (quick)' if args.quick else ''}; report folder {target}")
        report = run_spec(spec, out_dir=target, quick=quick, progress=console.progress_enabled(),
                          only=args.only or None, on_line=console.note if console.show_text else None,
                          interval=args.interval or 30.0,
                          recorded=recorded_times(reference) if reference is not None else None)
        all_ok &= bool(report.ok)
        verdicts.append(report.verdict)
        entry = {"spec": spec, "verdict": report.verdict, "passed": report.verdict == "PASS",
                 "counts": report.counts(), "out_dir": report.out_dir, "report": report.to_dict()}
        console.print(report.summary())
        if reference is not None:
            rows = compare_reports(report, reference)
            entry["comparison"] = {"reference": args.reference, "checks": rows}
            console.print(f"\nagainst the recorded report {args.reference}:")
            console.print(format_comparison(rows))
        results.append(entry)
    overall = "FAIL" if "FAIL" in verdicts else ("PASS" if all(v == "PASS" for v in verdicts) else "INCONCLUSIVE")
    console.emit({"verdict": overall, "passed": overall == "PASS", "results": results})
    for r in results:
        c = r["counts"]
        console.print(f"{r['spec']}: {r['verdict']} ({', '.join(f'{k} {v}' for k, v in c.items())}); "
                      f"report written to {r['out_dir']}")
    return 0 if all_ok else 1


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register the ``certify`` verb on the ``sub`` subparsers (``parents``: shared options).

    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="sosproj").add_subparsers(dest="verb")
    >>> add_parser(sub, [])
    >>> sorted(sub.choices)
    ['certify']
    """
    p = sub.add_parser("certify", parents=parents, help="run certificate specs and write their reports",
                       description="Run certificate specs (checks of the paper's bounds) and write "
                                   "their reports. Without SPEC, runs every spec in ./certificates.")
    p.add_argument("spec", nargs="*", metavar="SPEC", help="TOML spec file(s)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="report folder, new or empty (default: a new folder "
                        "./sosproj-certify/<suite name>-<UTC time>; never the recorded reports)")
    p.add_argument("--force", action="store_true",
                   help="write into a non-empty --out folder (replaces the report there)")
    p.add_argument("--reference", metavar="REPORT",
                   help="compare with a recorded report.json (or its folder): verdicts, times, and "
                        "measured numbers that moved; its times also drive the estimates")
    p.add_argument("--interval", type=float, default=None, metavar="SECONDS",
                   help="longest silence between progress lines while a check runs (default 30)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="each check's reduced sizes (smoke test)")
    size.add_argument("--full", action="store_true", help="full sizes even if the spec says quick")
    p.add_argument("--only", action="append", metavar="CHECK", help="run only this check (repeatable)")
    p.set_defaults(func=run)


__all__ = ["find_specs", "run"]

"""``sosproj certify [SPEC ...] [--out DIR] [--quick | --full] [--only CHECK]``.

Runs certificate specs with :func:`sosproj.certificates.run_spec`. A spec (a
TOML file, see ``docs/certificates.md``) lists checks of the paper's bounds --
Gaussian-complexity estimates with confidence intervals, error rates against
the theoretical exponents. Each spec's report (``report.json`` and one PNG per
check) goes to ``--out`` (``--out/<spec name>`` when several specs run), by
default next to the spec in ``reports/<suite name>``. Without SPEC, every
``*.toml`` spec in ``./certificates/`` is run.

Exit code 0 when no check failed, 1 when a check failed (the report says which),
2 for a missing or malformed spec or an unwritable ``--out``, 3 for a solver
failure.

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
from sosproj.errors import InvalidInputError

SPEC_SUFFIXES = (".toml",)


def find_specs(folder: str = "certificates") -> list[str]:
    """Spec files (``*.toml``) in ``folder``, sorted.

    >>> find_specs("/nonexistent-folder")
    []
    """
    if not os.path.isdir(folder):
        return []
    return sorted(p for p in glob.glob(os.path.join(folder, "*")) if p.lower().endswith(SPEC_SUFFIXES))


def run(args: argparse.Namespace, console: Console) -> int:
    """Run each spec with :func:`sosproj.certificates.run_spec`; exit code 0 if no check failed, else 1.

    Specs and ``--out`` are validated before anything runs:

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
    out_dir = args.out
    if out_dir is not None:
        if os.path.exists(out_dir) and not os.path.isdir(out_dir):
            raise OutputError(f"--out: {out_dir} exists and is not a directory; choose another path")
        try:
            os.makedirs(out_dir, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"--out: cannot create {out_dir} ({exc.strerror}); "
                              "choose a writable path") from exc
    from sosproj.certificates import run_spec

    quick = True if args.quick else (False if args.full else None)
    results = []
    all_ok = True
    for spec in specs:
        target = None if out_dir is None else (
            out_dir if len(specs) == 1 else os.path.join(out_dir, os.path.splitext(os.path.basename(spec))[0]))
        console.note(f"certify: running {spec}{' (quick)' if args.quick else ''} ...")
        report = run_spec(spec, out_dir=target, quick=quick, progress=console.progress_enabled(),
                          only=args.only or None)
        ok = bool(report.ok)
        all_ok &= ok
        results.append({"spec": spec, "passed": ok, "out_dir": report.out_dir, "report": report.to_dict()})
        console.print(f"{spec}: {'PASS' if ok else 'FAIL'}")
        console.print(report.summary())
    console.emit({"passed": all_ok, "results": results})
    for r in results:
        console.print(f"report of {r['spec']} written to {r['out_dir']}")
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
                   help="report folder (default: reports/<suite name> next to the spec)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="each check's reduced sizes (smoke test)")
    size.add_argument("--full", action="store_true", help="full sizes even if the spec says quick")
    p.add_argument("--only", action="append", metavar="CHECK", help="run only this check (repeatable)")
    p.set_defaults(func=run)


__all__ = ["find_specs", "run"]

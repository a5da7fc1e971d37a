"""``sosproj certify [SPEC ...] [--out DIR] [--quick]``: run certificate specs, write their reports.

A spec (see ``docs/certificates.md``) lists checks of the paper's bounds --
Gaussian-complexity estimates with confidence intervals, error rates against
the theoretical exponents. Each spec's report (JSON, plus whatever plots the
certificate layer writes) goes to ``--out`` (default ``./certificate-reports``).
Without SPEC, every spec in ``./certificates/`` is run.

Exit code 0 when every check passed or was inconclusive-but-allowed by the spec,
1 when a check failed (the report says which), 2 for a missing or malformed
spec, 3 for a solver failure.

Examples
--------
>>> from sosproj.cli.main import build_parser
>>> build_parser().parse_args(["certify", "spec.toml", "--quick"]).quick
True
"""

from __future__ import annotations

import argparse
import glob
import os
from typing import Any

from sosproj.cli.io import OutputError
from sosproj.cli.output import Console
from sosproj.errors import InvalidInputError

SPEC_SUFFIXES = (".toml", ".json", ".yaml", ".yml")


def find_specs(folder: str = "certificates") -> list[str]:
    """Spec files (``.toml``, ``.json``, ``.yaml``) in ``folder``, sorted.

    >>> find_specs("/nonexistent-folder")
    []
    """
    if not os.path.isdir(folder):
        return []
    return sorted(p for p in glob.glob(os.path.join(folder, "*")) if p.lower().endswith(SPEC_SUFFIXES))


def _passed(report: Any, doc: dict[str, Any]) -> bool:
    for attr in ("passed", "ok"):
        val = getattr(report, attr, None)
        if isinstance(val, bool):
            return val
    verdict = doc.get("verdict") or doc.get("status")
    if isinstance(verdict, str):
        return verdict.lower() not in {"fail", "failed", "violated"}
    return True


def run(args: argparse.Namespace, console: Console) -> int:
    """Run each spec with :func:`sosproj.certificates.run_spec`; report verdicts."""
    from sosproj.certificates import run_spec

    specs = list(args.spec) or find_specs()
    if not specs:
        raise InvalidInputError("certify: no SPEC given and no spec files in ./certificates; "
                                "pass a spec path (see docs/certificates.md)")
    for s in specs:
        if not os.path.isfile(s):
            raise InvalidInputError(f"certify: spec file not found: {s}; check the path")
    out_dir = args.out
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise OutputError(f"--out: {out_dir} exists and is not a directory; choose another path")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out: cannot create {out_dir} ({exc.strerror}); choose a writable path") from exc
    results = []
    all_ok = True
    for spec in console.progress(specs, desc="specs"):
        console.note(f"certify: running {spec}{' (quick)' if args.quick else ''} ...")
        report = run_spec(spec, out_dir=out_dir, quick=args.quick or None,
                          progress=console.progress_enabled())
        doc = _report_doc(report)
        ok = _passed(report, doc)
        all_ok &= ok
        results.append({"spec": spec, "passed": ok, "report": doc})
        console.print(f"{spec}: {'PASS' if ok else 'FAIL'}")
        summary = getattr(report, "summary", None)
        if callable(summary):
            console.print(summary())
    console.emit({"out_dir": out_dir, "passed": all_ok, "results": results})
    console.print(f"reports written to {out_dir}")
    return 0 if all_ok else 1


def _report_doc(report: Any) -> dict[str, Any]:
    import json

    to_json = getattr(report, "to_json", None)
    if callable(to_json):
        doc = to_json()
        if isinstance(doc, str):
            return json.loads(doc)
        return dict(doc)
    to_dict = getattr(report, "to_dict", None)
    return dict(to_dict()) if callable(to_dict) else {}


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("certify", parents=parents, help="run certificate specs and write their reports",
                       description="Run certificate specs (checks of the paper's bounds) and write "
                                   "their reports. Without SPEC, runs every spec in ./certificates.")
    p.add_argument("spec", nargs="*", metavar="SPEC", help="spec file(s) (.toml/.json/.yaml)")
    p.add_argument("--out", default="certificate-reports", metavar="DIR",
                   help="report folder (default: ./certificate-reports)")
    p.add_argument("--quick", action="store_true", help="reduced sizes and trials (smoke test)")
    p.set_defaults(func=run)


__all__ = ["find_specs", "run"]

"""Command-line entry point: ``python -m sosproj.certificates SPEC [--out DIR] [--quick|--full]``.

Runs a TOML suite (see :mod:`sosproj.certificates.spec`), writes ``report.json`` and the
plots, prints a summary and exits with status 1 when a check failed or raised.
"""

from __future__ import annotations

import argparse
import sys

from sosproj.certificates.spec import run_spec


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the suite, print the summary; return the exit status."""
    ap = argparse.ArgumentParser(prog="python -m sosproj.certificates", description=__doc__)
    ap.add_argument("spec", help="path of a TOML suite, e.g. certificates/quick.toml")
    ap.add_argument("--out", default=None,
                    help="output folder (default: a new folder ./sosproj-certify/<suite>-<UTC time>)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="quick", action="store_true", default=None,
                      help="use the checks' quick sizes")
    mode.add_argument("--full", dest="quick", action="store_false", help="use the full sizes")
    ap.add_argument("--only", nargs="+", default=None, help="run only these checks of the spec")
    ap.add_argument("--no-progress", action="store_true", help="never show progress bars")
    args = ap.parse_args(argv)
    report = run_spec(args.spec, out_dir=args.out, quick=args.quick,
                      progress=False if args.no_progress else None, only=args.only,
                      on_line=lambda line: print(line, file=sys.stderr, flush=True))
    print(report.summary())
    print(f"report written to {report.out_dir}")
    return 0 if report.ok else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

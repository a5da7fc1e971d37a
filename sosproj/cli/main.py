"""Entry point of the ``sosproj`` console script.

``sosproj <verb> [options]`` with the verbs ``demo``, ``release``, ``certify``
and ``info``; ``sosproj --help`` and ``sosproj <verb> --help`` list the options.
The CLI holds no mathematics: each verb parses arguments, calls the library and
writes files.

Exit codes (stable, for scripts):

* ``0``: success;
* ``1``: any other error (a bug: rerun with ``--debug`` for the traceback), or a
  failed certificate check;
* ``2``: bad input or usage: unknown option, missing/malformed input file,
  invalid parameter, unwritable or existing output path, problem too large;
* ``3``: solver failure: a projection or conic solve did not converge, or the
  requested solver is not installed/licensed;
* ``4``: refused on privacy grounds: privacy budget exceeded, or data that would
  break the stated sensitivity (policy refusal);
* ``130``: interrupted (Ctrl-C); no partial output file is left behind.

Examples
--------
>>> main(["info", "--json", "--no-mosek-check"]) == 0  # doctest: +ELLIPSIS
{...}
True
>>> exit_code_for(__import__("sosproj.errors").errors.ProjectionError("no"))
3
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from sosproj._version import __version__
from sosproj.cli import certify, demo, info, release
from sosproj.cli.io import OutputError
from sosproj.cli.output import Console
from sosproj.errors import (
    DataPolicyError,
    InputTypeError,
    InvalidInputError,
    InvalidParameterError,
    PrivacyBudgetError,
    ProjectionError,
    ResourceLimitError,
    SolverNotAvailableError,
    SosprojError,
)
from sosproj.threads import blas_threads

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_SOLVER = 3
EXIT_POLICY = 4
EXIT_INTERRUPTED = 130


def exit_code_for(exc: BaseException) -> int:
    """Map an exception to the CLI's exit code (see the module docstring).

    >>> from sosproj.errors import InvalidInputError, PrivacyBudgetError
    >>> exit_code_for(InvalidInputError("x")), exit_code_for(PrivacyBudgetError("x"))
    (2, 4)
    """
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, (PrivacyBudgetError, DataPolicyError)):
        return EXIT_POLICY
    if isinstance(exc, (ProjectionError, SolverNotAvailableError)):
        return EXIT_SOLVER
    if isinstance(exc, (OutputError, InvalidInputError, InvalidParameterError, InputTypeError,
                        ResourceLimitError)):
        return EXIT_USAGE
    return EXIT_ERROR


def _common_options(suppress: bool) -> argparse.ArgumentParser:
    """--quiet/--json/--debug, accepted before or after the verb."""
    default = argparse.SUPPRESS if suppress else False
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("output")
    g.add_argument("-q", "--quiet", action="store_true", default=default,
                   help="print nothing but errors")
    g.add_argument("--json", action="store_true", default=default, dest="json",
                   help="print one JSON document on stdout (for scripts)")
    g.add_argument("--debug", action="store_true", default=default,
                   help="show the full traceback of unexpected errors")
    t = p.add_argument_group("performance")
    t.add_argument("--threads", default=argparse.SUPPRESS if suppress else None, metavar="N",
                   help="BLAS threads of sosproj's linear algebra: a positive integer or 'all' "
                        "(default: $SOSPROJ_NUM_THREADS, else 1 -- fastest for sosproj's small dense "
                        "solver steps, and many times faster on a busy machine)")
    return p


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose usage errors raise instead of exiting (main returns the code)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{message}\n{self.format_usage().strip()}")


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (used by :func:`main` and the CLI docs).

    >>> build_parser().prog
    'sosproj'
    """
    parser = _Parser(
        prog="sosproj", parents=[_common_options(suppress=False)],
        description="Differentially private similarities and marginals by perturb-and-project "
                    "(ICML 2024). Exit codes: 0 ok, 1 other error, 2 bad input/usage, "
                    "3 solver failure, 4 privacy/policy refusal, 130 interrupted.")
    parser.add_argument("-V", "--version", action="version", version=f"sosproj {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    parents = [_common_options(suppress=True)]
    demo.add_parser(sub, parents)
    release.add_parser(sub, parents)
    certify.add_parser(sub, parents)
    info.add_parser(sub, parents)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Never raises on expected failures: they are reported on stderr (or as a
    JSON ``{"error": ...}`` document with ``--json``) and mapped to the exit
    codes listed in the module docstring.

    >>> main(["release", "cosine", "missing.npy", "--epsilon", "1", "--delta", "1e-6", "--sensitivity", "1",
    ...       "-o", "out"])
    2
    """
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader of stdout went away (e.g. `sosproj info | head -1`); files already
        # written are complete (atomic writes). Silence the interpreter's flush at exit.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
        except OSError:  # pragma: no cover
            pass
        return EXIT_ERROR


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    json_mode = "--json" in argv
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        Console(json_mode=json_mode).error(str(exc), kind="UsageError", exit_code=EXIT_USAGE)
        return EXIT_USAGE
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0) if isinstance(exc.code, int) or exc.code is None else EXIT_USAGE
    console = Console(quiet=args.quiet, json_mode=args.json)
    if getattr(args, "func", None) is None:
        if args.verb == "release":
            console.error("release needs a kind: cosine or marginals (see sosproj release --help)",
                          kind="UsageError", exit_code=EXIT_USAGE)
            return EXIT_USAGE
        parser.print_help(sys.stdout if console.show_text else sys.stderr)
        return EXIT_USAGE
    try:
        with blas_threads(args.threads):
            return int(args.func(args, console))
    except KeyboardInterrupt:
        console.error("interrupted; no partial output was written", kind="KeyboardInterrupt",
                      exit_code=EXIT_INTERRUPTED)
        return EXIT_INTERRUPTED
    except SosprojError as exc:
        code = exit_code_for(exc)
        if args.debug:
            raise
        console.error(str(exc), kind=type(exc).__name__, exit_code=code)
        return code
    except BrokenPipeError:
        raise  # handled by main(): stdout's reader went away, nothing to report
    except Exception as exc:  # noqa: BLE001 - last-resort handler of the CLI
        if args.debug:
            raise
        # The message of an unexpected exception may quote data; print its type only.
        console.error(f"unexpected {type(exc).__name__}; rerun with --debug for the traceback "
                      "and report it", kind=type(exc).__name__, exit_code=EXIT_ERROR)
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The ``sosproj`` command-line interface (``sosproj <verb>``; ``python -m sosproj``).

Verbs: ``demo`` (main job on bundled data, report folder with a plot),
``release cosine|marginals`` (private release of a file, ``.npz`` + JSON sidecar,
written atomically), ``certify`` (run certificate specs), ``info`` (version,
solvers, MOSEK licence, BLAS/threads). See ``docs/cli.md`` for the exit codes.

>>> from sosproj.cli import main
>>> main(["--version"])  # doctest: +ELLIPSIS
sosproj ...
0
"""

from sosproj.cli.main import build_parser, exit_code_for, main

__all__ = ["main", "build_parser", "exit_code_for"]

"""The ``sosproj`` command-line interface (``sosproj <verb>``; ``python -m sosproj``).

Verbs: ``demo`` (main job on bundled data, report folder with a plot),
``release cosine|marginals`` (private release of a file, ``.npz`` + JSON sidecar,
written atomically), ``certify`` (run certificate specs), ``info`` (version,
solvers, MOSEK licence, BLAS/threads). The entry point is
:func:`sosproj.cli.main.main`; ``docs/cli.md`` lists the options and exit codes.

Every verb runs under the BLAS thread policy of :mod:`sosproj.threads` (one
thread for sosproj's small dense solver steps; ``--threads N`` or
``$SOSPROJ_NUM_THREADS`` overrides it).

>>> from sosproj.cli.main import main
>>> main(["--version"])  # doctest: +ELLIPSIS
sosproj ...
0
"""

__all__: list[str] = []

"""The ``sosproj`` command-line interface (``sosproj <verb>``; ``python -m sosproj``).

Verbs: ``demo`` (main job on bundled data, report folder with a plot),
``release cosine|marginals`` (private release of a file, ``.npz`` + JSON sidecar,
written atomically), ``certify`` (run certificate specs), ``info`` (version,
solvers, MOSEK licence, BLAS/threads). The entry point is
:func:`sosproj.cli.main.main`; ``docs/cli.md`` lists the options and exit codes.

``sosproj demo`` solves small dense problems (a few hundred rows), for which one
BLAS thread is as fast as several on an idle machine and several times faster on a
shared one (spin-waiting OpenBLAS threads). When the process was started as
``sosproj demo`` and numpy is not loaded yet, this package therefore defaults the
BLAS thread variables to 1 (an explicit setting in the environment wins);
:mod:`sosproj.cli.demo` also limits the threads with threadpoolctl when installed.

>>> from sosproj.cli.main import main
>>> main(["--version"])  # doctest: +ELLIPSIS
sosproj ...
0
"""

import os as _os
import sys as _sys

_BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _demo_uses_one_blas_thread(argv: list[str]) -> bool:
    """True for a ``sosproj demo`` process that has not loaded numpy yet.

    >>> _demo_uses_one_blas_thread(["/usr/bin/sosproj", "--quiet", "info"])
    False
    """
    if "numpy" in _sys.modules or not argv:
        return False
    if _os.path.basename(argv[0]) not in ("sosproj", "sosproj.exe", "__main__.py"):
        return False
    verbs = [a for a in argv[1:] if not a.startswith("-")]
    return verbs[:1] == ["demo"]


if _demo_uses_one_blas_thread(list(_sys.argv)):
    for _var in _BLAS_THREAD_VARS:
        _os.environ.setdefault(_var, "1")

__all__: list[str] = []

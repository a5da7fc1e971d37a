"""MOSEK backend (optional extra ``sosproj[mosek]``; needs a licence).

MOSEK is reached through cvxpy's MOSEK interface on the reference model of
:mod:`sosproj.sdp.backends.cvxpy` (tested with the other solvers), so this
module only checks that the package imports and a licence can be checked out,
and raises :class:`~sosproj.errors.SolverNotAvailableError` otherwise; tests
marked ``mosek`` skip cleanly on machines without it.

>>> available() in (True, False)
True
"""

from __future__ import annotations

from sosproj.errors import SolverNotAvailableError
from sosproj.sdp.backends.base import iterate_bytes, sparse_kkt_entries
from sosproj.sdp.backends.cvxpy import CvxpyBackend
from sosproj.sdp.cones import Cones


def available() -> bool:
    """Whether ``mosek`` imports and a licence can be checked out (never raises)."""
    try:
        _check()
    except SolverNotAvailableError:
        return False
    return True


def _check() -> None:
    try:
        import mosek
    except ImportError as exc:
        raise SolverNotAvailableError("solver 'mosek' needs the optional 'mosek' package "
                                      "(pip install 'sosproj[mosek]') and a licence") from exc
    try:
        with mosek.Env() as env:
            env.checkoutlicense(mosek.feature.pts)
    except Exception as exc:  # mosek.Error, licence missing or expired
        raise SolverNotAvailableError("MOSEK is installed but no valid licence was found; set "
                                      "MOSEKLM_LICENSE_FILE or pick solver='scs'") from exc


class MosekBackend(CvxpyBackend):
    """MOSEK through cvxpy; refuses to build without the package or a licence.

    Options: ``solver_options`` (a dict passed to cvxpy, e.g. ``{"mosek_params": {...}}``).
    """

    name = "mosek"
    options = {"solver_options": None}
    fixed_solver = "MOSEK"

    @classmethod
    def estimate_memory(cls, n: int, cones: Cones, nnz_A: int, nnz_P: int) -> int:
        """The Schur complement over the variables (``n^2`` doubles) plus the sparse data."""
        return int(8 * n * n + 12 * 4 * sparse_kkt_entries(n, cones, nnz_A, nnz_P) + iterate_bytes(n, cones))

    def _require(self) -> None:
        """Refuse to build without the package or a licence (after the option check)."""
        _check()


__all__ = ["MosekBackend", "available"]

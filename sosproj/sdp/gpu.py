r"""Optional accelerator for the PSD projections of the first-order solvers (issue 15, item 5).

Every iteration of the structured ADMM (:class:`~sosproj.sdp.backends.admm.AdmmBackend`) projects each
PSD block, :math:`\Pi_{\mathcal S_+}(X) = \sum_i \max(\lambda_i, 0)\,u_iu_i^\top`, which costs one
dense symmetric eigendecomposition, :math:`O(d^3)` — 80-90% of an iteration at the orders of the
degree-4 moment matrices of issue 15 (496 at n = 30, 1,326 at n = 50; ``docs/bench_sdp.md``). On a GPU
the same decomposition (cuSOLVER's ``syevd`` through PyTorch) is one to two orders of magnitude faster
at these orders, so :class:`TorchPSDProjector` runs it there: the block is assembled on the host exactly
as :class:`~sosproj.sdp.cones.PSDProjector` does, copied to the device, decomposed and recombined there
(in float64: the answer is the same projection to rounding), and the projected block comes back.
Nothing else of the solver moves: the iterates, the stopping tests and the certificates stay on the
host and in float64, so the solver's answer and status mean exactly what they mean on the CPU.

The accelerator is never required: PyTorch is an optional dependency (extra ``gpu``), and
:func:`resolve_device` refuses a device that is not there with a clear error rather than falling back
silently. ``device="cpu"`` runs the same code with PyTorch on the host (the tests compare it with the
NumPy projector where no GPU is present).

The host solvers that decompose only part of a spectrum (``solver="lowrank"``'s one-sided and top
eigenpairs, ``solver="rankone_newton"``'s negative eigenpairs,
:func:`~sosproj.sdp.backends.side_spectrum.side_eigh`) take the same ``device`` option and call
:func:`device_eigh` there: a GPU has no cheaper partial decomposition than its full ``syevd``, which is
still far faster than the host's partial one at these orders, so every eigenvalue is computed on the
device (in the precision of the matrix handed over) and only the eigenvectors the caller selects come
back. :func:`check_device_memory` refuses up front a decomposition that would not fit the device's free
memory (``"cuda"``) or the host's budget (``"cpu"``, :func:`~sosproj.validation.check_memory`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sosproj.errors import ResourceLimitError, SolverNotAvailableError
from sosproj.sdp.cones import PSDProjector
from sosproj.validation import check_memory, format_bytes

__all__ = ["TorchPSDProjector", "gpu_available", "resolve_device", "device_eigh", "device_eigh_bytes",
           "check_device_memory", "DEVICE_EIGH_WORDS"]

#: words of device memory per entry of an order-``d`` dense decomposition: the matrix, its eigenvectors,
#: ``syevd``'s workspace (:math:`1 + 6d + 2d^2` words) and one product of the size of the matrix
DEVICE_EIGH_WORDS = 6


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:          # pragma: no cover - depends on the environment
        raise SolverNotAvailableError(
            "device=... needs PyTorch (pip install 'sosproj[gpu]' with a CUDA build of torch)") from exc
    return torch


def gpu_available() -> bool:
    """True when PyTorch is installed and sees a CUDA device."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def resolve_device(device: str | None) -> str | None:
    """Validate a ``device`` option: ``None`` (NumPy on the host, the default), ``"cpu"`` (PyTorch on the
    host), ``"cuda"`` / ``"cuda:K"`` (a GPU, refused when absent) or ``"auto"`` (``"cuda"`` when one is
    present, else ``None``).

    >>> resolve_device(None) is None
    True
    """
    if device is None:
        return None
    if not isinstance(device, str):
        raise SolverNotAvailableError(f"device must be None, 'auto', 'cpu' or 'cuda[:K]', not {device!r}")
    if device == "auto":
        return "cuda" if gpu_available() else None
    if device == "cpu":
        _torch()
        return "cpu"
    if device == "cuda" or device.startswith("cuda:"):
        torch = _torch()
        if not torch.cuda.is_available():
            raise SolverNotAvailableError(f"device={device!r}: PyTorch sees no CUDA device on this machine")
        return device
    raise SolverNotAvailableError(f"device must be None, 'auto', 'cpu' or 'cuda[:K]', not {device!r}")


def device_eigh_bytes(d: int, itemsize: int = 8) -> int:
    """Estimated device bytes of one order-``d`` decomposition in words of ``itemsize`` bytes
    (:data:`DEVICE_EIGH_WORDS` matrices of order ``d`` plus a vector term).

    >>> device_eigh_bytes(1000) == 6 * 8 * 10**6 + 64 * 8 * 1000
    True
    """
    d = int(d)
    return int(DEVICE_EIGH_WORDS * itemsize * d * d + 64 * itemsize * d)


def check_device_memory(d: int, device: str, what: str, itemsize: int = 8) -> None:
    """Refuse, before any work, an order-``d`` decomposition on ``device`` that does not fit: on a GPU its
    :func:`device_eigh_bytes` against the device's free memory (``torch.cuda.mem_get_info``); on
    ``"cpu"`` against the host budget of :func:`~sosproj.validation.check_memory`. Raises
    :class:`~sosproj.errors.ResourceLimitError`."""
    need = device_eigh_bytes(d, itemsize)
    if device == "cpu":
        check_memory(need, f"{what} (PyTorch on the host)")
        return
    torch = _torch()
    free, _ = torch.cuda.mem_get_info(torch.device(device))
    if need > free:
        raise ResourceLimitError(
            f"{what} on {device} needs an estimated {format_bytes(need)} of device memory, more than the "
            f"{format_bytes(free)} free there; use device=None (the host) or a smaller size",
            estimate_bytes=int(need), limit_bytes=int(free))


def device_eigh(M: np.ndarray, device: str, columns: Callable[[np.ndarray], slice] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    r"""Every eigenvalue of the symmetric ``M`` and the eigenvectors of the columns ``columns`` selects,
    decomposed on ``device`` (``torch.linalg.eigh``, cuSOLVER's ``syevd`` on a GPU) in ``M``'s precision.

    Returns ``(w, V)`` on the host: ``w`` all eigenvalues, ascending (``M``'s dtype); ``V`` the
    eigenvectors ``[:, columns(w)]`` (default all), Fortran-ordered. Only one triangle is read, as
    :func:`~sosproj.sdp.backends.side_spectrum.side_eigh` reads it: the upper one of a C-ordered ``M``,
    the lower one otherwise. Only ``d + d k`` numbers come back for ``k`` selected columns.

    >>> w, V = device_eigh(np.diag([2.0, -1.0, 3.0]), "cpu", lambda w: slice(0, 1))  # doctest: +SKIP
    >>> w.tolist(), V.ravel().tolist()                                               # doctest: +SKIP
    ([-1.0, 2.0, 3.0], [0.0, 1.0, 0.0])
    """
    torch = _torch()
    if M.dtype not in (np.float32, np.float64) or M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError("device_eigh needs a square float32 or float64 matrix")
    upper = bool(M.flags.c_contiguous)          # side_eigh's rule: upper if C-ordered, else lower
    A = M if (upper or M.flags.f_contiguous) else np.asfortranarray(M)
    Mt = torch.from_numpy(A).to(torch.device(device))
    w_t, V_t = torch.linalg.eigh(Mt, UPLO="U" if upper else "L")
    w = w_t.cpu().numpy()
    cols = columns(w) if columns is not None else slice(None)
    # the selected columns as rows of a C-ordered block: one contiguous copy back, Fortran order here
    V = V_t[:, cols].T.contiguous().cpu().numpy().T
    return w, V


class TorchPSDProjector(PSDProjector):
    r""":class:`~sosproj.sdp.cones.PSDProjector` with the eigendecomposition on a PyTorch device.

    Same input and output (a scaled-svec block in SCS order); the block is formed on the host, copied to
    ``device``, decomposed by ``torch.linalg.eigh`` in float64 and the projection is formed there from the
    smaller eigenspace (:math:`X - \sum_{\lambda_i<0}\lambda_iu_iu_i^\top` when at most half of the
    eigenvalues are negative, else :math:`\sum_{\lambda_i>0}\lambda_iu_iu_i^\top`), then copied back.
    ``self.last_negative`` records the number of negative eigenvalues of the last call.

    ``single_rtol`` (``solver="lowrank"``'s policy for projections, None by default: always float64):
    while the solver's residual level ``self.rtol`` is at least ``single_rtol`` the decomposition runs in
    float32 (its backward error, about :math:`10^{-7}\|X\|`, is then far below the solver's current
    error) and the projection is still formed in float64. ``single_calls`` counts those calls.
    """

    def __init__(self, d: int, device: str = "cuda", single_rtol: float | None = None) -> None:
        super().__init__(d)
        torch = _torch()
        self.torch = torch
        self.device = torch.device(device)
        self.last_negative = 0
        self.single_rtol = None if single_rtol is None else float(single_rtol)
        self.rtol = 1.0
        self.calls = self.single_calls = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        d = self.d
        if d == 1:
            return np.maximum(v, 0.0)
        torch = self.torch
        self.calls += 1
        Mt = torch.from_numpy(self.matrix(v)).to(self.device, dtype=torch.float64)
        if self.single_rtol is not None and self.rtol >= self.single_rtol:
            self.single_calls += 1
            lam, V = torch.linalg.eigh(Mt.to(torch.float32))
            lam, V = lam.to(torch.float64), V.to(torch.float64)
        else:
            lam, V = torch.linalg.eigh(Mt)
        neg = int(torch.searchsorted(lam, torch.zeros(1, dtype=lam.dtype, device=lam.device)).item())
        self.last_negative = neg
        if neg == 0:
            return v.copy()
        if neg == d:
            return np.zeros_like(v)
        if neg <= d - neg:
            Vn = V[:, :neg]
            X = Mt - (Vn * lam[:neg]) @ Vn.T
        else:
            Vp = V[:, neg:]
            X = (Vp * lam[neg:]) @ Vp.T
        return X.cpu().numpy().reshape(-1)[self.lower] * self.scale

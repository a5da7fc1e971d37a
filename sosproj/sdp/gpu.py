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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sosproj.errors import SolverNotAvailableError
from sosproj.sdp.cones import PSDProjector

__all__ = ["TorchPSDProjector", "gpu_available", "resolve_device"]


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


class TorchPSDProjector(PSDProjector):
    r""":class:`~sosproj.sdp.cones.PSDProjector` with the eigendecomposition on a PyTorch device.

    Same input and output (a scaled-svec block in SCS order); the block is formed on the host, copied to
    ``device``, decomposed by ``torch.linalg.eigh`` in float64 and the projection is formed there from the
    smaller eigenspace (:math:`X - \sum_{\lambda_i<0}\lambda_iu_iu_i^\top` when at most half of the
    eigenvalues are negative, else :math:`\sum_{\lambda_i>0}\lambda_iu_iu_i^\top`), then copied back.
    ``self.last_negative`` records the number of negative eigenvalues of the last call.
    """

    def __init__(self, d: int, device: str = "cuda") -> None:
        super().__init__(d)
        torch = _torch()
        self.torch = torch
        self.device = torch.device(device)
        self.last_negative = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        d = self.d
        if d == 1:
            return np.maximum(v, 0.0)
        torch = self.torch
        Mt = torch.from_numpy(self.matrix(v)).to(self.device, dtype=torch.float64)
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

"""Shared cases of the rank-one certificate tests (``test_sdp_rankone*.py``)."""

from __future__ import annotations

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp.lowrank_support import TensorRounding


def tensor_case(n: int, seed: int = 0, planted: float = 0.0):
    """The degree-4 unit-ball relaxation, a Gaussian 3-tensor and, with ``planted > 0``, the planted
    unit vector ``v`` of ``W + planted * v^(x)3`` (else ``None``)."""
    rng = np.random.default_rng(seed)
    R = MomentRelaxation(unit_ball(n), 4)
    W = rng.standard_normal((n, n, n))
    v = None
    if planted:
        v = rng.standard_normal(n)
        v /= np.linalg.norm(v)
        W = W + planted * np.einsum("i,j,k->ijk", v, v, v)
    return R, W, v


class WrongCandidate(TensorRounding):
    """A rounding whose candidate is a poor point: no certificate can reach the gap."""

    def best_point(self, q, starts=128, rng=0, iters=100, tol=1e-12, polish=4):
        T = self.tensor(q)
        z = np.ones(T.shape[0]) / np.sqrt(T.shape[0])
        return self._value(T, z), z

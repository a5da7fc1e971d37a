"""Shared cases of the rank-one certificate tests (``test_sdp_rankone*.py``)."""

from __future__ import annotations

import time
from typing import Any

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



def assert_planted_certified_tight(solver: str, n: int = 8) -> None:
    """The planted tensor ``W + 40 v^(x)3`` at ``n``: ``solver`` certifies the support tight with one
    extracted atom at the planted direction (``|<x, v>| >= 0.99``) and a relative gap <= 1e-7."""
    from sosproj.sets import PseudoMomentSet

    R, W, v = tensor_case(n, seed=5, planted=40.0)
    info = PseudoMomentSet(R, 3).support(W, solver=solver, tol=1e-8, certify=True).info
    assert info["converged"] and info["tight"]
    assert info["atoms_success"] and len(info["atoms_weights"]) == 1
    assert abs(float(info["point"] @ v)) >= 0.99
    assert info["upper_bound"] - info["point_value"] <= 1e-7 * abs(info["upper_bound"])

class WrongCandidate(TensorRounding):
    """A rounding whose candidate is a poor point: no certificate can reach the gap."""

    def best_point(self, q, starts=128, rng=0, iters=100, tol=1e-12, polish=4):
        T = self.tensor(q)
        z = np.ones(T.shape[0]) / np.sqrt(T.shape[0])
        return self._value(T, z), z


def slow_douglas_rachford(monkeypatch: Any, feas: Any, seconds: float = 0.05) -> None:
    """Make every Douglas-Rachford step of ``feas`` (a ``DualFeasibility``) take at least ``seconds``."""
    affine = feas.affine

    def slow(*a):
        time.sleep(seconds)
        return affine(*a)

    monkeypatch.setattr(feas, "affine", slow)

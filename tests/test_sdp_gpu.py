"""The optional accelerator of the ADMM's PSD projections (sosproj.sdp.gpu, issue 15 item 5).

Where PyTorch is installed, its host path (device="cpu") is compared with the NumPy projector and with the
ADMM's answer; where a CUDA device is present the same on the GPU. Without PyTorch (CI) only the refusals run.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from sosproj.errors import SolverNotAvailableError
from sosproj.poly import unit_ball
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.cones import PSDProjector, svec
from sosproj.sdp.gpu import gpu_available, resolve_device
from sosproj.sdp.solve import solve

HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch, the optional GPU extra [gpu], is not installed")
DEVICES = ["cpu"] + (["cuda"] if HAS_TORCH and gpu_available() else [])


def test_bad_device_is_refused_with_a_clear_error():
    with pytest.raises(SolverNotAvailableError, match="device must be"):
        resolve_device("tpu")
    with pytest.raises(SolverNotAvailableError, match="device must be"):
        resolve_device(3)
    assert resolve_device(None) is None
    if not (HAS_TORCH and gpu_available()):
        assert resolve_device("auto") is None
        with pytest.raises(SolverNotAvailableError):
            resolve_device("cuda")


def test_lowrank_refuses_a_device(relaxations):
    R = relaxations(unit_ball, 3)
    prob = compile_projection(R, 3, np.random.default_rng(0).normal(size=(3, 3, 3)))
    with pytest.raises(SolverNotAvailableError, match="lowrank"):
        solve(prob, solver="lowrank", device="cpu")


@needs_torch
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("negatives", [0, 3, 20, 37, 40])
def test_torch_projector_equals_numpy(device, negatives):
    from sosproj.sdp.gpu import TorchPSDProjector

    rng = np.random.default_rng(negatives)
    d = 40
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    lam = np.concatenate([-rng.uniform(0.1, 2, negatives), rng.uniform(0.1, 2, d - negatives)])
    v = svec((Q * lam) @ Q.T)
    ref = PSDProjector(d)(v)
    got = TorchPSDProjector(d, device)(v)
    np.testing.assert_allclose(got, ref, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("device", DEVICES)
def test_admm_on_a_device_gives_the_host_answer(device, relaxations):
    R = relaxations(unit_ball, 5)
    prob = compile_projection(R, 3, np.random.default_rng(1).normal(size=(5, 5, 5)))
    host = solve(prob, solver="admm", tol=1e-9)
    dev = solve(prob, solver="admm", tol=1e-9, device=device)
    assert host.converged and dev.converged
    ro = R.readout(3)
    np.testing.assert_allclose(ro(dev.x), ro(host.x), atol=1e-7)
    assert dev.objective == pytest.approx(host.objective, rel=1e-7, abs=1e-9)

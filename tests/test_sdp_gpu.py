"""The optional accelerator of the ADMM's PSD projections (sosproj.sdp.gpu, issue 15 item 5).

Where PyTorch is installed, its host path (device="cpu") is compared with the NumPy projector and with the
ADMM's answer, and the device paths of ``side_eigh``, ``lowrank`` (projections and supports) and
``rankone_newton`` with their LAPACK paths; where a CUDA device is present the same on the GPU. Without
PyTorch (CI) only the refusals run.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from rankone_cases import WrongCandidate

from sosproj.errors import SolverNotAvailableError
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.compile import compile_projection
from sosproj.sdp.cones import PSDProjector, svec
from sosproj.sdp.gpu import gpu_available, resolve_device
from sosproj.sdp.lowrank_support import support_route
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


def _problem(solver: str, n: int):
    """A projection (``lowrank``) or a support (``rankone_newton``, with its route's settings) at ``n``."""
    R = MomentRelaxation(unit_ball(n), 4)
    W = np.random.default_rng(0).normal(size=(n, n, n))
    if solver == "lowrank":
        return R, compile_projection(R, 3, W), {}
    return R, compile_support(R, 3, W), support_route(R, solver, 1e-7, 3)[1]


@pytest.mark.parametrize("solver", ["lowrank", "rankone_newton"])
def test_partial_solvers_refuse_a_bad_device(solver):
    _, prob, settings = _problem(solver, 3)
    with pytest.raises(SolverNotAvailableError, match="device must be"):
        solve(prob, solver=solver, device="tpu", **settings)
    if not (HAS_TORCH and gpu_available()):
        with pytest.raises(SolverNotAvailableError):
            solve(prob, solver=solver, device="cuda", **settings)


@needs_torch
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("d, shift", [(8, 0.0), (11, 0.0), (12, 2.5), (12, -2.5), (10, 100.0), (10, -100.0)])
def test_side_eigh_on_a_device_equals_lapack(device, d, shift):
    from sosproj.sdp.backends.side_spectrum import side_eigh

    rng = np.random.default_rng(d)
    A = rng.normal(size=(d, d))
    A = A + A.T + shift * np.eye(d)
    for M, tol in ((A, 1e-12), (np.asfortranarray(A), 1e-12), (A.astype(np.float32), 2e-5)):
        ref = side_eigh(M.copy())
        info: dict = {}
        got = side_eigh(M.copy(), device=device, info=info)
        assert got[2:] == ref[2:] and got[0].dtype == ref[0].dtype == got[1].dtype == M.dtype
        assert got[1].flags.f_contiguous and got[1].shape == ref[1].shape and info["stein"] is False
        np.testing.assert_allclose(got[0], ref[0], atol=tol * max(1.0, abs(shift)))
        # the same eigenvectors up to sign (the spectrum of a random matrix is simple)
        np.testing.assert_allclose(np.abs(got[1].T @ ref[1].astype(float)), np.eye(ref[1].shape[1]), atol=100 * tol)
    # one triangle only, as LAPACK's path reads it (upper of a C-ordered matrix, lower otherwise): garbage in
    # the other one changes nothing
    B = A.copy()
    B[np.tril_indices(d, -1)] = 1e3
    np.testing.assert_allclose(side_eigh(B, device=device)[0], side_eigh(A.copy())[0], atol=1e-12 * max(1, abs(shift)))
    C = np.zeros((d, 2 * d))
    C[:, ::2] = A
    C[np.triu_indices(d, 1)[0], 2 * np.triu_indices(d, 1)[1]] = 1e3     # a strided view: its upper triangle spoiled
    view = C[:, ::2]
    assert not (view.flags.c_contiguous or view.flags.f_contiguous)
    atol = 1e-12 * max(1, abs(shift))
    np.testing.assert_allclose(side_eigh(view, device=device)[0], side_eigh(view.copy(order="F"))[0], atol=atol)
    np.testing.assert_allclose(side_eigh(view, device=device)[0], side_eigh(A.copy())[0], atol=atol)


@needs_torch
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [8, 10])
def test_lowrank_projection_on_a_device_gives_the_host_answer(device, n):
    R = MomentRelaxation(unit_ball(n), 4)
    prob = compile_projection(R, 3, np.random.default_rng(n).normal(size=(n, n, n)))
    order = R.psd_blocks[0].order
    host = solve(prob, solver="lowrank", tol=1e-9, side_min_order=20)
    dev = solve(prob, solver="lowrank", tol=1e-9, side_min_order=20, device=device)
    assert host.converged and dev.converged
    assert dev.info[f"device_calls_{order}"] == dev.iterations > dev.info[f"device_single_calls_{order}"] > 0
    ro = R.readout(3)
    np.testing.assert_allclose(ro(dev.x), ro(host.x), atol=1e-6)
    assert dev.objective == pytest.approx(host.objective, rel=1e-8)


def _count_device_calls(monkeypatch, module):
    import sosproj.sdp.gpu as gpu

    calls = []

    def counted(*args, **kw):
        calls.append(args[0].shape[0])
        return gpu.device_eigh(*args, **kw)

    monkeypatch.setattr(module, "device_eigh", counted)
    return calls


@needs_torch
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n, solver", [(10, "rankone_newton"), (12, "rankone_newton"), (10, "lowrank")])
def test_supports_on_a_device_give_the_host_answer(device, n, solver, monkeypatch):
    import sosproj.sdp.backends.lowrank as lowrank_module
    import sosproj.sdp.rankone_dual as rankone_dual

    calls = _count_device_calls(monkeypatch, lowrank_module if solver == "lowrank" else rankone_dual)
    R = MomentRelaxation(unit_ball(n), 4)
    prob = compile_support(R, 3, np.random.default_rng(n).normal(size=(n, n, n)))
    _, settings = support_route(R, solver, 1e-7, 3)
    if solver == "lowrank":
        settings["partial_min_order"] = 10
    host = solve(prob, solver=solver, tol=1e-7, **settings)
    assert not calls
    dev = solve(prob, solver=solver, tol=1e-7, device=device, **settings)
    assert calls and R.psd_blocks[0].order in calls
    # both certified to the same target; the support value (an exactly feasible point's) agrees
    assert host.status == dev.status == "solved"
    assert dev.info["cert_relative_gap"] <= dev.info["cert_gap_tol"]
    assert dev.objective == pytest.approx(host.objective, rel=1e-9)
    assert dev.info["cert_lower"] == pytest.approx(host.info["cert_lower"], rel=1e-6)


@needs_torch
@pytest.mark.parametrize("solver", ["lowrank", "rankone_newton"])
def test_device_memory_is_estimated_and_refused_up_front(solver, monkeypatch):
    import sosproj.sdp.gpu as gpu
    from sosproj.errors import ResourceLimitError

    R, prob, settings = _problem(solver, 6)
    order = R.psd_blocks[0].order
    assert gpu.device_eigh_bytes(order) == gpu.DEVICE_EIGH_WORDS * 8 * order ** 2 + 64 * 8 * order
    # a decomposition that needs more than the whole budget (the host's workspace alone fits it)
    monkeypatch.setenv("SOSPROJ_MEMORY_LIMIT", str(2 ** 30))
    monkeypatch.setattr(gpu, "DEVICE_EIGH_WORDS", 2 ** 30)
    calls = _count_device_calls(monkeypatch, gpu)
    with pytest.raises(ResourceLimitError, match="PyTorch on the host"):
        solve(prob, solver=solver, device="cpu", **settings)
    assert not calls
    monkeypatch.setattr(gpu, "DEVICE_EIGH_WORDS", 6)
    assert solve(prob, solver=solver, device="cpu", **settings).status in ("solved", "max_iter")


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


@needs_torch
def test_auto_keeps_an_explicit_device_on_the_lowrank_route(monkeypatch):
    import sosproj.sdp.backends.admm as admm_module
    from sosproj.sdp.gpu import TorchPSDProjector
    from sosproj.sdp.solve import ConicSolver

    R = MomentRelaxation(unit_ball(8), 4)
    prob = compile_projection(R, 3, np.random.default_rng(3).normal(size=(8, 8, 8)))
    order = R.psd_blocks[0].order
    monkeypatch.setattr(admm_module, "AUTO_PROJECTION_LOWRANK_MIN_ORDER", order)
    ws = ConicSolver(prob, "auto", device="cpu", side_min_order=20)
    assert ws.name == "lowrank" and isinstance(ws._backend.psd_proj[order], TorchPSDProjector)
    # without device= nothing moves below AUTO_PROJECTION_DEVICE_MIN_ORDER (order 45 here)
    ws = ConicSolver(prob, "auto", side_min_order=20)
    assert ws.name == "lowrank" and not isinstance(ws._backend.psd_proj[order], TorchPSDProjector)


@needs_torch
def test_the_lowrank_fallback_of_rankone_newton_keeps_the_device():
    from sosproj.sdp.gpu import TorchPSDProjector
    from sosproj.sdp.solve import ConicSolver

    # a rounding whose candidate is a poor point: no rank-one certificate can reach the gap, so the fallback
    # runs whatever the Newton rounds do (session 30's premise, rounds that end just above the gap at n = 8, stopped
    # holding once the Newton phase improved)
    R = MomentRelaxation(unit_ball(8), 4)
    prob = compile_support(R, 3, np.random.default_rng(8).standard_normal((8, 8, 8)))
    _, settings = support_route(R, "rankone_newton", 1e-7, 3)
    settings["rounding"] = WrongCandidate(R, 3)
    ws = ConicSolver(prob, "rankone_newton", tol=1e-7, device="cpu", fallback="lowrank", **settings)
    res = ws.solve(on_fail="return")
    fb = ws._backend._fallback
    assert res.info["fallback"] == "lowrank" and res.status == "solved"
    assert fb.device == "cpu" and isinstance(fb.psd_proj[R.psd_blocks[0].order], TorchPSDProjector)


def _auto_device_problem(monkeypatch):
    """An n = 6 projection with both auto thresholds lowered to its moment order (28)."""
    import sosproj.sdp.backends.admm as admm_module

    R = MomentRelaxation(unit_ball(6), 4)
    prob = compile_projection(R, 3, np.random.default_rng(5).normal(scale=0.1, size=(6, 6, 6)))
    order = R.psd_blocks[0].order
    monkeypatch.setattr(admm_module, "AUTO_PROJECTION_LOWRANK_MIN_ORDER", order)
    monkeypatch.setattr(admm_module, "AUTO_PROJECTION_DEVICE_MIN_ORDER", order)
    return R, prob, order


def test_auto_asks_for_a_device_on_large_projections_only():
    from sosproj.sdp.backends.admm import AUTO_PROJECTION_DEVICE_MIN_ORDER, auto_options
    from sosproj.sdp.conic import Cones

    d = AUTO_PROJECTION_DEVICE_MIN_ORDER
    assert auto_options(Cones(zero=1, psd=(d, 51)), 100) == {"device": "auto"}
    assert auto_options(Cones(zero=1, psd=(d - 1, 51)), 100) == {}
    assert auto_options(Cones(zero=1, psd=(d, 51)), 0) == {}           # supports: unchanged


def test_auto_device_without_a_gpu_is_the_host_path_bit_for_bit(monkeypatch):
    import sosproj.sdp.gpu as gpu_module
    from sosproj.sdp.solve import ConicSolver

    R, prob, _ = _auto_device_problem(monkeypatch)
    monkeypatch.setattr(gpu_module, "gpu_available", lambda: False)
    ws = ConicSolver(prob, "auto", tol=1e-8, side_min_order=20)
    assert ws.name == "lowrank" and ws._backend.device is None
    res = ws.solve()
    host = ConicSolver(prob, "lowrank", tol=1e-8, side_min_order=20).solve()
    assert res.converged and "device" not in res.info
    np.testing.assert_array_equal(res.x, host.x)
    # the answer is the projection: Clarabel at 1e-9 (read-out moments and objective), and its own
    # recomputed KKT residuals (primal, dual, gap, cone violations) within the tolerance
    ref = solve(prob, solver="clarabel", tol=1e-9, on_fail="return")
    assert max(ref.primal_residual, ref.dual_residual, ref.duality_gap) < 1e-8
    ro = R.readout(3)
    np.testing.assert_allclose(ro(res.x), ro(ref.x), atol=1e-6)
    assert res.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-9)
    assert max(res.primal_residual, res.dual_residual, res.duality_gap) <= 1e-8
    assert max(res.info["cone_violation_primal"], res.info["cone_violation_dual"]) <= 1e-8


def test_auto_device_lacking_memory_falls_back_to_the_host_before_any_work(monkeypatch):
    import sosproj.sdp.backends.admm as admm_module
    import sosproj.sdp.backends.lowrank as lowrank_module
    from sosproj.errors import ResourceLimitError
    from sosproj.sdp.solve import ConicSolver

    _, prob, _ = _auto_device_problem(monkeypatch)
    calls = []

    def fake_resolve(device):
        return "cpu" if device == "auto" else device

    def refuse(d, device, what, itemsize=8):
        calls.append((d, device))
        raise ResourceLimitError(f"{what} on {device}: no memory (test)")

    monkeypatch.setattr(lowrank_module, "resolve_device", fake_resolve)
    monkeypatch.setattr(admm_module, "resolve_device", fake_resolve)
    monkeypatch.setattr(lowrank_module, "check_device_memory", refuse)
    ws = ConicSolver(prob, "auto", tol=1e-8, side_min_order=20)
    assert calls and ws._backend.device is None
    res = ws.solve()
    assert res.converged and "no memory" in res.info["auto_note"] and "device" not in res.info
    # an explicit device=None is kept: no device is tried at all
    calls.clear()
    ws = ConicSolver(prob, "auto", tol=1e-8, side_min_order=20, device=None)
    assert not calls and ws._backend.device is None and ws.structure_note is None


@needs_torch
def test_auto_device_runs_the_projection_on_the_device_and_matches_the_host(monkeypatch):
    import sosproj.sdp.backends.admm as admm_module
    import sosproj.sdp.backends.lowrank as lowrank_module
    from sosproj.sdp.gpu import TorchPSDProjector
    from sosproj.sdp.solve import ConicSolver

    R, prob, order = _auto_device_problem(monkeypatch)
    if not gpu_available():            # PyTorch on the host stands in for the GPU

        def fake_resolve(device):
            return "cpu" if device == "auto" else resolve_device(device)

        monkeypatch.setattr(lowrank_module, "resolve_device", fake_resolve)
        monkeypatch.setattr(admm_module, "resolve_device", fake_resolve)
    ws = ConicSolver(prob, "auto", tol=1e-8, side_min_order=20)
    assert isinstance(ws._backend.psd_proj[order], TorchPSDProjector)
    res = ws.solve()
    host = ConicSolver(prob, "lowrank", tol=1e-8, side_min_order=20).solve()
    assert res.converged and res.info["device"] in ("cpu", "cuda")
    ro = R.readout(3)
    np.testing.assert_allclose(ro(res.x), ro(host.x), atol=1e-6)


@needs_torch
@pytest.mark.parametrize("device", DEVICES)
def test_newton_face_full_path_on_a_device_equals_the_host(device, monkeypatch):
    # issue 15, session 30: after a face with > MAX_NEGATIVE negative eigenvalues the next decomposition is one device
    # eigh with every eigenvector (FULL_STICKY); projection and Jacobian as the host's _PsdBlock, and back to the
    # partial path when the count drops
    from sosproj.sdp import partial_newton as pn
    from sosproj.sdp.backends.ssnal import _PsdBlock
    from sosproj.sdp.partial_newton import PartialPsdBlock

    MAX_NEGATIVE = 8                # the switch at a small order (the default is 64 since issue 15's session 35)
    monkeypatch.setattr(pn, "MAX_NEGATIVE", MAX_NEGATIVE)
    monkeypatch.setattr(pn, "FIRST_NEGATIVE_HINT", MAX_NEGATIVE)

    rng = np.random.default_rng(3)
    d = 60
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    part = PartialPsdBlock(d, device=resolve_device(device))
    for k in (MAX_NEGATIVE + 7, MAX_NEGATIVE + 4, 2):
        lam = np.concatenate([-rng.uniform(0.1, 2, k), rng.uniform(0.1, 2, d - k)])
        w = svec((Q * lam) @ Q.T)
        full = _PsdBlock(d, single=False)
        (p1, m1), (p2, m2) = full.decompose(w), part.decompose(w)
        assert part.partial == (k <= MAX_NEGATIVE)
        np.testing.assert_allclose(p2, p1, atol=1e-10)
        np.testing.assert_allclose(m2, m1, atol=1e-10)
        H = rng.normal(size=(d, d))
        h = svec(H + H.T)
        np.testing.assert_allclose(part.jacobian(h), full.jacobian(h), atol=1e-9)

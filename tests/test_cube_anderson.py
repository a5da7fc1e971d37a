"""Anderson acceleration of the cube ADMM (``anderson=m`` of CubeTablesProjector, issue 14): the same projection
as cvxpy/Clarabel and the plain ADMM, certified gap stops, valid multipliers, and the safeguard."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sosproj.sdp.cube_tables_admm as cta
from sosproj.errors import InputTypeError, InvalidParameterError
from sosproj.sdp.cube_gap import certified_distance, measured_count
from sosproj.sdp.cube_tables_admm import CubeTablesProjector
from tests.test_cube_gap import _a_dist, _full, _problem, clarabel_reference


@pytest.fixture(scope="module")
def clarabel():
    """Degree-4 cube least squares (unmeasured order-4 moments) solved by cvxpy/Clarabel at 1e-9."""
    cp = pytest.importorskip("cvxpy")
    n, ff = _problem(2, n=4, noise=0.08)
    proj = CubeTablesProjector(n, 4, ff.a)
    f, opt = clarabel_reference(cp, proj, _full(proj, ff.g))
    return n, ff, f, opt


@pytest.mark.parametrize("mem", [3, 10])
@pytest.mark.parametrize("init", ["zero", "cumulant"])
def test_anderson_reaches_clarabel_and_the_plain_admm(clarabel, mem: int, init: str) -> None:
    n, ff, f_ref, opt = clarabel
    acc = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000, init=init, anderson=mem)
    f_acc, info = acc.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"] and info["anderson"] == mem and info["anderson_accepted"] > 0
    gg = _full(acc, ff.g)
    q = 0.5 * float(np.sum(acc.a * (f_acc - gg) ** 2))
    assert q == pytest.approx(opt, rel=1e-5, abs=1e-8)
    assert _a_dist(acc, f_acc, f_ref) <= 1e-4 * math.sqrt(measured_count(acc.a))
    plain = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000, init=init)
    f_plain, info_p = plain.solve(ff.g, warm_start=False, on_fail="raise")
    assert "anderson" not in info_p
    assert _a_dist(acc, f_acc, f_plain) <= 1e-4 * math.sqrt(measured_count(acc.a))
    # the multiplier stays PSD (L = v - Pi(v) is NSD for every v), so its certificate is valid and tight
    L, rho = acc._warm
    S = -rho * L
    assert np.linalg.eigvalsh(S).min() >= -1e-9 * max(1.0, np.abs(S).max())
    assert certified_distance(acc, f_acc, gg, S) <= 1e-2 * math.sqrt(2.0 * max(opt, 1e-12)) + 1e-6


@pytest.mark.parametrize("gap_tol", [0.3, 0.05])
def test_anderson_gap_stop_lies_within_its_certified_distance(clarabel, gap_tol: float) -> None:
    n, ff, f_ref, _ = clarabel
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=100000, gap_tol=gap_tol, init="cumulant",
                               anderson=10)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"] and info["stop"] == "gap"
    assert info["certified_distance"] <= gap_tol * math.sqrt(measured_count(proj.a))
    assert _a_dist(proj, f, f_ref) <= info["certified_distance"] + 1e-6
    assert f[0] == 1.0 and np.linalg.eigvalsh(proj.moment_matrix(f)).min() >= -1e-12


@pytest.mark.parametrize("mem", [0, 10])
def test_every_iterate_certificate_bounds_the_true_distance(clarabel, mem: int) -> None:
    """Stopped early (any iteration count), the accelerated run's reported certified distance is an upper
    bound on the distance to the exact projection (here a plain ADMM run to 1e-12, tighter than Clarabel's
    answer), as the plain ADMM's is."""
    n, ff, _, _ = clarabel
    f_ref, info_ref = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=200000).solve(
        ff.g, warm_start=False, on_fail="raise")
    assert info_ref["converged"]
    for iters in (7, 23, 61):
        proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=iters, anderson=mem)
        f, info = proj.solve(ff.g, warm_start=False, on_fail="return")
        assert _a_dist(proj, f, f_ref) <= info["certified_distance"] + 1e-8


def test_rejected_steps_fall_back_to_the_plain_step_and_still_converge(clarabel, monkeypatch) -> None:
    """Safeguard: with a factor of 0 every extrapolated step is rejected (its residual is never <= 0); each
    rejection restores the plain ADMM step and clears the memory, and the run converges to the same point."""
    n, ff, f_ref, _ = clarabel
    monkeypatch.setattr(cta, "ANDERSON_SAFEGUARD", 0.0)
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000, anderson=5)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"] and info["anderson_rejected"] > 10 and info["anderson_accepted"] == 0
    assert _a_dist(proj, f, f_ref) <= 1e-4 * math.sqrt(measured_count(proj.a))
    # a factor between: some steps kept, some rejected, same answer
    monkeypatch.setattr(cta, "ANDERSON_SAFEGUARD", 0.5)
    f2, info2 = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000, anderson=5).solve(
        ff.g, warm_start=False, on_fail="raise")
    assert info2["converged"] and info2["anderson_rejected"] > 0 and info2["anderson_accepted"] > 0
    assert _a_dist(proj, f2, f_ref) <= 1e-4 * math.sqrt(measured_count(proj.a))


def test_anderson_option_is_checked() -> None:
    n, ff = _problem(1, n=4)
    with pytest.raises(InvalidParameterError):
        CubeTablesProjector(n, 4, ff.a, anderson=-1)
    for bad in (1.5, "10", "x"):
        with pytest.raises(InputTypeError):
            CubeTablesProjector(n, 4, ff.a, anderson=bad)
    # warm starts (a second solve) keep working with acceleration
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-9, max_iter=100000, anderson=10)
    f1, _ = proj.solve(ff.g, on_fail="raise")
    f2, info2 = proj.solve(ff.g, on_fail="raise")
    assert info2["converged"] and _a_dist(proj, f1, f2) <= 1e-4 * math.sqrt(measured_count(proj.a))


def test_pipeline_default_acceleration_reads_public_quantities_only(cube_path, monkeypatch) -> None:
    """The release's cube step gets CUBE_ANDERSON (20) when its moment-matrix order (a function of n and the
    workload only) is at most CUBE_ANDERSON_MAX_ORDER, else 0; datasets of the same shape get the same."""
    import sosproj.mechanisms.marginals_pipeline as mp
    from sosproj.data.domain import Dataset, Domain

    assert mp.CUBE_ANDERSON == 20 and mp.CUBE_ANDERSON_MAX_ORDER == 300
    seen: list = []
    orig = cta.CubeTablesProjector.__init__

    def spy(self, n, degree, weights, **opt):
        seen.append(opt.get("anderson"))
        orig(self, n, degree, weights, **opt)

    monkeypatch.setattr(cta.CubeTablesProjector, "__init__", spy)
    n, m = 6, 300
    for limit in (300, 10):
        monkeypatch.setattr(mp, "CUBE_ANDERSON_MAX_ORDER", limit)         # order 1 + 6 + 15 = 22
        for seed, p in ((0, 0.2), (1, 0.7)):
            rng = np.random.default_rng(seed)
            X = (rng.random((m, n)) < p).astype(np.int64)
            rel = mp.release(Dataset(X, Domain.from_sizes([2] * n)), 3, epsilon=1.0, delta=1e-9, rng=seed)
            assert rel.info["reconstruction_info"]["binary_step"] == "cube"
            assert rel.info["reconstruction_info"]["converged"]
    assert seen == [20, 20, 0, 0]


def test_mirror_lower_is_bit_identical_to_tril() -> None:
    from sosproj.sdp.cube_tables_admm import _mirror_lower

    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 137, 600):
        low = rng.standard_normal((n, n)) * 10.0 ** rng.integers(-300, 300, (n, n))
        low[rng.random((n, n)) < 0.1] = -0.0
        ref = np.tril(low) + np.tril(low, -1).T
        out = _mirror_lower(low)
        assert out.tobytes() == ref.tobytes()

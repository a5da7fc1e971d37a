"""The duality-gap certificate of the Boolean-cube least squares (sosproj.sdp.cube_gap) and the cube ADMM's
certified-distance stop (``gap_tol``), against a tightly converged ADMM and an independent cvxpy/Clarabel solve."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sosproj.data.contingency import SubsetIndex, TableLayout, contingency_tables, fourier_form
from sosproj.errors import InvalidParameterError
from sosproj.sdp.cube_gap import certified_distance, dual_bound, measured_count
from sosproj.sdp.cube_tables_admm import CubeTablesProjector


def _problem(seed: int = 0, n: int = 5, m: int = 40, noise: float = 0.05):
    rng = np.random.default_rng(seed)
    D = (rng.random((m, n)) < 0.3).astype(np.uint8)
    lay = TableLayout.all_k_way(n, 3)
    tabs = contingency_tables(D, lay, flat=True) / m
    tabs = tabs + rng.normal(0.0, noise, tabs.shape)             # noisy: the PSD constraint is active
    return n, fourier_form(tabs, lay, SubsetIndex(n, 3))


def _full(proj: CubeTablesProjector, g: np.ndarray) -> np.ndarray:
    gg = np.zeros(proj.n_moments)
    gg[:g.size] = g
    return gg


def _a_dist(proj: CubeTablesProjector, f: np.ndarray, h: np.ndarray) -> float:
    a = proj.a[-f.size:]
    return float(np.sqrt(np.sum(a * (f - h) ** 2)))


@pytest.fixture(scope="module")
def reference():
    """A problem with unmeasured (order-4) moments and its projection to tol 1e-10."""
    n, ff = _problem()
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000)
    f_ref, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"] and np.any(proj.a[1:] == 0)
    return n, ff, f_ref


@pytest.mark.parametrize("iters", [5, 20, 60, 200])
def test_certified_distance_bounds_the_true_distance(reference, iters: int) -> None:
    """For every ADMM iterate: the bound is at least the a-norm distance to the exact projection, and the
    dual bound is at most the optimal value."""
    n, ff, f_ref = reference
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=iters)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="return")     # feasible (theta mix) on return
    L, rho = proj._warm
    S = -rho * L
    assert np.linalg.eigvalsh(S).min() >= -1e-9 * max(1.0, np.abs(S).max())
    gg = _full(proj, ff.g)
    opt = 0.5 * float(np.sum(proj.a * (f_ref - gg) ** 2))
    assert dual_bound(proj, gg, S) <= opt + 1e-9
    dist = certified_distance(proj, f, gg, S)
    assert _a_dist(proj, f, f_ref) <= dist + 1e-7
    # any PSD S gives a valid (weaker) bound, e.g. S = 0: the distance to the measurement itself
    # (f_() = 1 is fixed, so its term is no distance)
    assert certified_distance(proj, f, gg, np.zeros_like(S)) == pytest.approx(_a_dist(proj, f[1:], gg[1:]))


def clarabel_reference(cp, proj: CubeTablesProjector, gg: np.ndarray) -> tuple[np.ndarray, float]:
    """The cube least squares of ``proj`` towards the full moment vector ``gg`` by cvxpy/Clarabel at 1e-9:
    (optimal moments, optimal value); the independent reference of the cube tests."""
    f = cp.Variable(proj.n_moments)
    pos = proj.pos
    Mf = cp.reshape(f[pos.ravel()], pos.shape, order="C")
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum(cp.multiply(proj.a, cp.square(f - gg)))),
                      [f[0] == 1, 0.5 * (Mf + Mf.T) >> 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-9, tol_gap_rel=1e-9, tol_feas=1e-9)
    return np.asarray(f.value), float(prob.value)


@pytest.mark.parametrize("init", ["zero", "cumulant"])
def test_dual_bound_below_an_independent_optimum(init: str) -> None:
    """The dual bound of a random PSD S and of the converged multiplier against cvxpy/Clarabel's optimal
    value (Fourier form, degree 4, tolerance 1e-9): never above it; the converged multiplier's gap is small;
    from either start (``init``) the ADMM reaches Clarabel's measured moments, and a gap stop's answer lies
    within its certified distance of them."""
    cp = pytest.importorskip("cvxpy")
    n, ff = _problem(2, n=4, noise=0.08)
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-10, max_iter=100000, init=init)
    gg = _full(proj, ff.g)
    f_ref, opt = clarabel_reference(cp, proj, gg)
    rng = np.random.default_rng(3)
    B = rng.standard_normal((proj.basis_size, 3))
    assert dual_bound(proj, gg, B @ B.T) <= opt + 1e-7
    f_admm, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    L, rho = proj._warm
    assert dual_bound(proj, gg, -rho * L) <= opt + 1e-7
    q = 0.5 * float(np.sum(proj.a * (f_admm - gg) ** 2))
    assert q == pytest.approx(opt, rel=1e-5, abs=1e-8)
    assert certified_distance(proj, f_admm, gg, -rho * L) <= 1e-2 * math.sqrt(2.0 * max(opt, 1e-12)) + 1e-6
    assert _a_dist(proj, f_admm, f_ref) <= 1e-4 * math.sqrt(measured_count(proj.a))
    stopped = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=100000, init=init, gap_tol=0.05)
    f_gap, info_gap = stopped.solve(ff.g, warm_start=False, on_fail="raise")
    assert info_gap["converged"] and info_gap["certified_distance"] <= 0.05 * math.sqrt(measured_count(proj.a))
    assert _a_dist(proj, f_gap, f_ref) <= info_gap["certified_distance"] + 1e-6


@pytest.mark.parametrize("gap_tol", [0.3, 0.05])
def test_gap_stop_returns_a_certified_answer(reference, gap_tol: float) -> None:
    n, ff, f_ref = reference
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=100000, gap_tol=gap_tol)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"] and info["stop"] == "gap"
    scale = gap_tol * math.sqrt(measured_count(proj.a))
    assert info["certified_distance"] <= scale
    assert _a_dist(proj, f, f_ref) <= info["certified_distance"] + 1e-7
    assert f[0] == 1.0 and np.linalg.eigvalsh(proj.moment_matrix(f)).min() >= -1e-12
    # off (the default): the residual test alone; the returned answer's certificate is still reported
    plain = CubeTablesProjector(n, 4, ff.a, tol=1e-6, max_iter=100000)
    f_p, info_p = plain.solve(ff.g, warm_start=False, on_fail="raise")
    assert info_p["stop"] == "residuals"
    assert _a_dist(proj, f_p, f_ref) <= info_p["certified_distance"] + 1e-7


def test_gap_stop_never_passes_an_uncertified_answer(reference) -> None:
    """A cap reached before either test is reported unconverged, with the last bound computed."""
    n, ff, _ = reference
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=30, gap_tol=1e-9)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="return")
    assert not info["converged"] and info["stop"] == "max_iter"
    # the returned answer's certificate is above the threshold
    assert info["certified_distance"] > 1e-9 * math.sqrt(measured_count(proj.a))
    with pytest.raises(InvalidParameterError):
        CubeTablesProjector(n, 4, ff.a, gap_tol=-1.0)
    with pytest.raises(InvalidParameterError):
        CubeTablesProjector(n, 4, ff.a, gap_tol=float("nan"))


@pytest.mark.parametrize("gap", [None, 0.05, 0.2])
def test_pipeline_gap_stop_reads_public_quantities_only(cube_path, monkeypatch, gap) -> None:
    """The cube step's certified-distance stop (default 0.05): CUBE_GAP_TOL times the square root of the
    number of measured moments, in the measurement metric, and its start (CUBE_INIT, the cumulant closure);
    two datasets of the same public shape (n, m, epsilon, delta) get the same stop rule and start rule."""
    import sosproj.mechanisms.marginals_pipeline as mp
    import sosproj.sdp.cube_tables_admm as cta
    from sosproj.data.domain import Dataset, Domain

    seen: list[tuple] = []
    orig = cta.CubeTablesProjector.__init__

    def spy(self, n, degree, weights, **opt):
        seen.append((opt.get("gap_tol"), measured_count(np.asarray(weights)), opt.get("init")))
        orig(self, n, degree, weights, **opt)

    monkeypatch.setattr(cta.CubeTablesProjector, "__init__", spy)
    if gap == 0.05:
        assert mp.CUBE_GAP_TOL == 0.05 and mp.CUBE_INIT == "cumulant"    # the defaults
    else:
        monkeypatch.setattr(mp, "CUBE_GAP_TOL", gap)
    n, m = 6, 300
    for seed, p in ((0, 0.2), (1, 0.7)):
        rng = np.random.default_rng(seed)
        X = (rng.random((m, n)) < p).astype(np.int64)
        ds = Dataset(X, Domain.from_sizes([2] * n))
        rel = mp.release(ds, 3, epsilon=1.0, delta=1e-9, rng=seed)
        assert rel.info["reconstruction_info"]["binary_step"] == "cube"
        cube = rel.info["reconstruction_info"]["cube"]
        assert cube["stop"] in (("residuals", "gap") if gap else ("residuals",))
        assert cube["certified_distance"] >= 0.0
    assert len(seen) == 2 and seen[0] == seen[1] and seen[0][0] == gap and seen[0][2] == "cumulant"

"""The Boolean-cube ADMM's one-sided PSD projection and its cheaper residual tests (same iterates), and the
same-run timing harness's refusal to time a sosproj other than the one asked for."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from sosproj.data.contingency import SubsetIndex, TableLayout, contingency_tables, fourier_form
from sosproj.sdp.cones import project_psd_dense
from sosproj.sdp.cube_tables_admm import CubeTablesProjector, _project_psd_side

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("shift", [-4.0, -0.5, 0.0, 0.5, 4.0, 100.0, -100.0])
@pytest.mark.parametrize("n", [1, 2, 7, 60])
def test_side_projection_is_the_frobenius_projection(n: int, shift: float) -> None:
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n))
    Y = A + A.T + shift * np.eye(n)
    Y0 = Y.copy()
    X = _project_psd_side(Y)
    assert np.array_equal(Y, Y0)                                   # input untouched
    assert np.array_equal(X, X.T)                                  # exactly symmetric
    ref = project_psd_dense(Y)[0]
    assert np.abs(X - ref).max() <= 1e-12 * max(1.0, np.abs(Y).max())
    lam = np.linalg.eigvalsh(X)
    assert lam.min() >= -1e-10 * max(1.0, np.abs(lam).max())
    # optimality of the Frobenius projection: X - Y is PSD (minus the negative part) and orthogonal to X
    D = X - Y
    assert np.linalg.eigvalsh(D).min() >= -1e-10 * max(1.0, np.abs(Y).max())
    assert abs(np.sum(D * X)) <= 1e-9 * max(1.0, np.sum(Y * Y))


def _problem(seed: int = 0, n: int = 5, m: int = 40):
    rng = np.random.default_rng(seed)
    D = (rng.random((m, n)) < 0.3).astype(np.uint8)
    lay = TableLayout.all_k_way(n, 3)
    tabs = contingency_tables(D, lay, flat=True) / m
    tabs = tabs + rng.normal(0.0, 0.05, tabs.shape)                # noisy: the PSD constraint is active
    return n, fourier_form(tabs, lay, SubsetIndex(n, 3))


def _plain_admm(proj: CubeTablesProjector, g: np.ndarray, iters: int) -> np.ndarray:
    """The projector's ADMM written out with ``project_psd_dense`` and both residuals every iteration."""
    gg = np.zeros(proj.n_moments)
    gg[:g.size] = g
    a, cnt, rho = proj.a, proj.count, proj.rho0
    f0 = np.where(a > 0, gg, 0.0)
    f0[0] = 1.0
    X = project_psd_dense(proj.moment_matrix(f0))[0]
    L = np.zeros_like(X)
    f = f0
    for it in range(1, iters + 1):
        f = (a * gg + rho * proj.adjoint(X - L)) / (a + rho * cnt)
        f[0] = 1.0
        Mf = proj.moment_matrix(f)
        X_old = X
        Mh = proj.alpha * Mf + (1.0 - proj.alpha) * X_old
        X = project_psd_dense(Mh + L)[0]
        L += Mh - X
        r_p = np.linalg.norm(Mf - X)
        r_d = rho * np.linalg.norm(proj.adjoint(X - X_old))
        eps_p = proj.tol * (1.0 + max(np.linalg.norm(Mf), np.linalg.norm(X)))
        eps_d = proj.tol * (1.0 + rho * np.linalg.norm(proj.adjoint(L)))
        if it % 5 == 0:
            if r_p / eps_p > 10 * r_d / eps_d:
                rho, L = rho * 2.0, L / 2.0
            elif r_d / eps_d > 10 * r_p / eps_p:
                rho, L = rho / 2.0, L * 2.0
    return f


@pytest.mark.parametrize("iters", [1, 4, 5, 13, 40])
def test_cube_admm_iterates_unchanged(iters: int) -> None:
    """Skipping the dual residual where neither the stop test nor the penalty update reads it, and the
    one-sided projection, leave the iterates those of the plain ADMM (before the final feasibility mix)."""
    n, ff = _problem()
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-12, max_iter=iters)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="return")
    assert info["iterations"] == iters and not info["converged"]
    assert np.isfinite(info["primal_residual"]) and np.isfinite(info["dual_residual"])
    ref = _plain_admm(proj, ff.g, iters)
    theta = info["theta"]
    ref_mixed = (1.0 - theta) * ref
    ref_mixed[0] = 1.0
    assert np.abs(f - ref_mixed).max() <= 1e-10


def test_cube_admm_converged_answer_is_optimal() -> None:
    """At convergence: M(f) PSD, f_() = 1, and the KKT conditions of the weighted projection hold
    approximately (the gradient 2a(f - g) is M^*(Z) for a PSD Z with <Z, M(f)> ~ 0)."""
    n, ff = _problem(1)
    proj = CubeTablesProjector(n, 4, ff.a, tol=1e-9, max_iter=50000)
    f, info = proj.solve(ff.g, warm_start=False, on_fail="raise")
    assert info["converged"]
    assert f[0] == 1.0
    assert np.linalg.eigvalsh(proj.moment_matrix(f)).min() >= -1e-12
    gg = np.zeros(proj.n_moments)
    gg[:ff.g.size] = ff.g
    # the optimum beats every feasible point on the segment to the uniform distribution's moments
    obj = float(np.sum(proj.a * (f - gg) ** 2))
    e0 = np.zeros_like(f)
    e0[0] = 1.0
    for t in (1e-3, 1e-2, 0.1, 0.5):
        assert obj <= float(np.sum(proj.a * ((1 - t) * f + t * e0 - gg) ** 2)) + 1e-9


def test_harness_refuses_another_sosproj(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from runtime_vs_pgm import sosproj_child

    with pytest.raises(SystemExit, match="not from"):
        sosproj_child(str(tmp_path), "nltcs", 1.0, 0, str(tmp_path / "row.json"))
    assert not (tmp_path / "row.json").exists()

"""The marginals solvers of the sdp layer: options, on_fail policy, and the dense PSD projection they use."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from sosproj.data.contingency import SubsetIndex, TableLayout, contingency_tables, fourier_form
from sosproj.errors import ProjectionError, UnknownOptionError
from sosproj.policy import ConvergenceWarning
from sosproj.sdp.cones import PSDProjector, project_psd_dense, smat, svec
from sosproj.sdp.cube_tables_admm import CubeTablesProjector
from sosproj.sdp.polytope_fista import polytope_least_squares


def _measurement(n=4, k=2, seed=0):
    g = np.random.default_rng(seed)
    D = (g.random((30, n)) < 0.4).astype(np.uint8)
    lay = TableLayout.all_k_way(n, k)
    cells = contingency_tables(D, lay, flat=True) / 30 + 0.05 * g.standard_normal(lay.n_cells)
    return cells, lay


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_project_psd_dense_is_the_frobenius_projection(seed, dtype):
    g = np.random.default_rng(seed)
    A = g.standard_normal((12, 12))
    Y = A + A.T
    X, lam_min = project_psd_dense(Y, dtype=dtype)
    lam, V = np.linalg.eigh(Y)
    ref = (V * np.maximum(lam, 0)) @ V.T                       # the closed form, computed independently
    atol = 1e-10 if dtype == np.float64 else 1e-4
    assert np.allclose(X, ref, atol=atol) and np.allclose(X, X.T)
    assert lam_min == pytest.approx(lam[0], abs=atol)
    # optimality: X PSD, X - Y PSD, <X, X - Y> = 0
    assert np.linalg.eigvalsh(X).min() >= -atol
    assert np.linalg.eigvalsh(X - Y).min() >= -atol
    assert abs(np.sum(X * (X - Y))) <= 10 * atol * np.linalg.norm(Y) ** 2
    # the svec projector of the same module agrees
    assert np.allclose(smat(PSDProjector(12)(svec(Y)), 12), X, atol=atol)


def test_project_psd_dense_leaves_a_psd_matrix_alone():
    Y = np.array([[2.0, 1.0], [1.0, 2.0]])
    X, lam_min = project_psd_dense(Y)
    assert X is not Y and np.array_equal(X, Y) and lam_min == pytest.approx(1.0)


def test_cube_projector_refuses_unknown_options():
    with pytest.raises(UnknownOptionError, match="maxiter"):
        CubeTablesProjector(3, 2, np.ones(4), maxiter=5)


def test_cube_projector_on_fail_policy():
    cells, lay = _measurement()
    ff = fourier_form(cells, lay, SubsetIndex(4, 2))
    g = ff.g.copy()
    g[1:] *= 3.0                                                 # far outside the relaxation
    with pytest.raises(ProjectionError):
        CubeTablesProjector(4, 2, ff.a, tol=1e-12, max_iter=2).solve(g, warm_start=False, on_fail="raise")
    with pytest.warns(ConvergenceWarning):
        CubeTablesProjector(4, 2, ff.a, tol=1e-12, max_iter=2).solve(g, warm_start=False, on_fail="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f, info = CubeTablesProjector(4, 2, ff.a, tol=1e-12, max_iter=2).solve(g, on_fail="return")
    assert not info["converged"] and f[0] == 1.0
    with pytest.raises(ValueError, match="on_fail"):
        CubeTablesProjector(4, 2, ff.a).solve(g, on_fail="ignore")


def test_polytope_fista_options_and_on_fail_policy():
    cells, lay = _measurement(seed=3)
    with pytest.raises(UnknownOptionError, match="maxiter"):
        polytope_least_squares(cells, lay, maxiter=5)
    with pytest.raises(ProjectionError) as err:
        polytope_least_squares(cells, lay, tol=1e-14, max_iter=2, on_fail="raise")
    assert err.value.info["iterations"] == 2 and not err.value.info["value"].converged
    with pytest.warns(ConvergenceWarning):
        polytope_least_squares(cells, lay, tol=1e-14, max_iter=2, on_fail="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = polytope_least_squares(cells, lay, tol=1e-14, max_iter=2)   # default "return"
    assert not fit.converged and fit.iterations == 2
    with pytest.raises(ValueError, match="on_fail"):
        polytope_least_squares(cells, lay, on_fail="ignore")

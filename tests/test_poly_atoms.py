"""Atom extraction (flat extensions, Henrion-Lasserre) and the tightness certificate of support values."""

from __future__ import annotations

import numpy as np
import pytest

from sosproj.errors import InvalidInputError
from sosproj.poly import MomentRelaxation, boolean_cube, extract_atoms, unit_ball
from sosproj.poly.atoms import numerical_rank
from sosproj.sdp.support_bounds import ball_interior_moments
from sosproj.sets import PseudoMomentSet


@pytest.mark.parametrize("n, r", [(2, 1), (3, 2), (4, 3)])
def test_recovers_atomic_measures(n, r):
    rng = np.random.default_rng(n + r)
    R = MomentRelaxation(unit_ball(n), 6 if r > n else 4)
    pts = rng.standard_normal((r, n))
    pts /= np.maximum(1.0, np.linalg.norm(pts, axis=1))[:, None] * 1.1
    w = rng.uniform(0.2, 1.0, r)
    w /= w.sum()
    res = extract_atoms(R, R.moments_of(pts, w), tol=1e-8, rng=1)
    assert res.success, res.message
    assert res.rank == r
    # match atoms to the planted ones (any order)
    for p, wt in zip(pts, w):
        j = int(np.argmin(np.linalg.norm(res.points - p, axis=1)))
        assert np.allclose(res.points[j], p, atol=1e-6)
        assert res.weights[j] == pytest.approx(wt, abs=1e-6)
    assert res.residual < 1e-8


def test_reports_ranks_honestly_without_flat_extension():
    n = 30
    R = MomentRelaxation(unit_ball(n), 4)
    res = extract_atoms(R, ball_interior_moments(R), tol=1e-6, rng=0)   # full-dimensional measure
    assert not res.success and res.rank == 0
    assert res.ranks == {0: 1, 1: n + 1, 2: R.psd_blocks[0].order}
    assert "no flat extension" in res.message
    assert res.points.shape == (0, n)


def test_refuses_reduced_systems_and_bad_moments():
    with pytest.raises(InvalidInputError):
        extract_atoms(MomentRelaxation(boolean_cube(3), 4), np.zeros(10))
    R = MomentRelaxation(unit_ball(2), 4)
    with pytest.raises(InvalidInputError):
        extract_atoms(R, np.zeros(3))
    assert not extract_atoms(R, np.zeros(R.n_moments)).success


def test_numerical_rank():
    assert numerical_rank(np.diag([1.0, 0.5, 1e-9]), 1e-6)[0] == 2
    assert numerical_rank(np.zeros((3, 3)), 1e-6)[0] == 0


def test_planted_tensor_is_certified_tight_with_one_atom():
    n, lam = 10, 25.0
    rng = np.random.default_rng(7)
    v = rng.standard_normal(n)
    v /= np.linalg.norm(v)
    W = lam * np.einsum("i,j,k->ijk", v, v, v) + rng.standard_normal((n, n, n))
    S = PseudoMomentSet(MomentRelaxation(unit_ball(n), 4), 3)
    res = S.support(W, solver="lowrank", tol=1e-8, certify=True)
    info = res.info
    assert info["converged"] and info["atoms_success"], info["atoms_message"]
    assert len(info["atoms_points"]) == 1
    x = info["atoms_points"][0]
    assert abs(x @ v) >= 0.99
    assert info["tight"] and info["tight_by"] == "atoms"
    # the extracted point attains the certified bound, recomputed from the point itself
    val = float(np.einsum("ijk,i,j,k->", W, x, x, x))
    assert np.linalg.norm(x) <= 1.0
    assert info["upper_bound"] - val <= 1e-7 * abs(val)
    assert val <= info["upper_bound"] + 1e-12


def test_not_tight_when_the_bound_is_not_attained():
    # an iteration cap leaves a loose (still valid) certified bound: no point attains it, and the
    # report says so instead of claiming tightness
    n = 6
    W = np.random.default_rng(3).standard_normal((n, n, n))
    S = PseudoMomentSet(MomentRelaxation(unit_ball(n), 4), 3)
    S.max_iter = 4
    info = S.support(W, solver="lowrank", tol=1e-8, certify=True, on_fail="return").info
    assert not info["converged"]
    assert info["point_value"] <= info["upper_bound"] + 1e-12
    assert not info["tight"] and info["tight_by"] is None
    assert info["certified_relative_gap"] > 1e-6

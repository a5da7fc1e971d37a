"""Moment relaxations: sizes vs closed forms, blocks vs direct evaluation, readouts, checks, limits."""

from __future__ import annotations

import itertools
import math
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError, ResourceLimitError
from sosproj.poly import (
    MomentRelaxation,
    PolySystem,
    PSDBlock,
    boolean_cube,
    sparse_ball,
    sphere,
    unit_ball,
)

# ------------------------------------------------------------------ helpers


def _tensor_power(x, k):
    t = np.array(1.0)
    for _ in range(k):
        t = np.multiply.outer(t, x)
    return t


def _ball_points(rng, N, n, radius_max=1.0):
    X = rng.normal(size=(N, n))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X * rng.uniform(0, radius_max, size=(N, 1))


def _sparse_points(rng, N, n, t):
    X = np.zeros((N, n))
    for r in range(N):
        idx = rng.choice(n, size=rng.integers(1, t + 1), replace=False)
        v = rng.normal(size=len(idx))
        X[r, idx] = v / np.linalg.norm(v) * rng.uniform(0.1, 1.0)
    return X


def _eval_monomials(P, E):
    return np.prod(P[:, None, :] ** E[None, :, :], axis=2)


def _direct_block(system, block, P, w):
    """sum_r w_r g(p_r) b(p_r) b(p_r)^T, straight from the points (no reduction involved)."""
    B = _eval_monomials(P, block.basis.astype(float))
    if block.kind == "moment":
        gv = np.ones(len(P))
    else:
        g = system.inequalities[system.inequality_names.index(block.name)]
        gv = g.evaluate(P)
    return np.einsum("r,ri,rj->ij", w * gv, B, B)


CASES = [
    ("ball", lambda: unit_ball(3), 4),
    ("ball6", lambda: unit_ball(2), 6),
    ("cube", lambda: boolean_cube(4), 4),
    ("cube_scaled", lambda: boolean_cube(3, scale=0.5), 6),
    ("sparse", lambda: sparse_ball(3, 1), 4),
    ("sparse6", lambda: sparse_ball(2, 1), 6),
    ("sphere", lambda: sphere(3), 4),
]


def _inside_points(name, S, rng, N=6):
    n = len(S.tensor_vars)
    if name.startswith("ball"):
        return _ball_points(rng, N, n)
    if name.startswith("cube"):
        return S.reduction.scale * rng.integers(0, 2, size=(N, n)).astype(float)
    if name.startswith("sparse"):
        return _sparse_points(rng, N, n, 1)
    X = rng.normal(size=(N, n))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


# ------------------------------------------------------------------ sizes


@pytest.mark.parametrize("n,d", [(1, 1), (3, 2), (5, 2), (4, 3)])
def test_unit_ball_sizes_closed_form(n, d):
    R = MomentRelaxation(unit_ball(n), 2 * d)
    assert R.psd_blocks[0].order == math.comb(n + d, d)
    assert R.n_moments == math.comb(n + 2 * d, 2 * d)
    assert R.psd_blocks[1].order == math.comb(n + d - 1, d - 1)
    assert R.monomials.shape == (R.n_moments, n)
    assert not R.monomials[0].any()


@pytest.mark.parametrize("n,d", [(3, 1), (5, 2), (6, 3)])
def test_boolean_cube_sizes_closed_form(n, d):
    R = MomentRelaxation(boolean_cube(n), 2 * d)
    assert R.psd_blocks[0].order == sum(math.comb(n, j) for j in range(d + 1))
    assert R.n_moments == sum(math.comb(n, j) for j in range(2 * d + 1))
    assert R.monomials.max() <= 1


@pytest.mark.parametrize("n,t,D", [(2, 1, 4), (3, 2, 4), (2, 2, 6)])
def test_sparse_ball_sizes_brute_force(n, t, D):
    S = sparse_ball(n, t)
    L = S.groebner().leading.tolist()

    def standard_count(maxdeg):
        return sum(1 for e in itertools.product(range(maxdeg + 1), repeat=3 * n) if sum(e) <= maxdeg
                   and not any(all(a >= b for a, b in zip(e, lm)) for lm in L))

    R = MomentRelaxation(S, D)
    assert R.n_moments == standard_count(D)
    assert R.psd_blocks[0].order == standard_count(D // 2)
    assert [b.order for b in R.psd_blocks[1:]] == [standard_count((D - 2) // 2)] + \
        [standard_count((D - 1) // 2)] * (2 * n + 1)


def test_estimate_matches_build_and_block_shapes():
    for make, D in [(lambda: unit_ball(4), 4), (lambda: boolean_cube(5, 0.5), 4),
                    (lambda: sparse_ball(3, 2), 4), (lambda: sphere(3), 4)]:
        S = make()
        est = MomentRelaxation.estimate(S, D)
        R = MomentRelaxation(S, D)
        assert est == R.estimate_size()
        assert est["n_moments"] == R.n_moments
        assert est["block_orders"] == R.block_orders
        nnz = sum(b.A.nnz for b in R.psd_blocks) + R.equalities[0].nnz
        if est["nnz_bound"] == "upper":
            assert nnz <= est["nnz"]
            assert R.psd_blocks[0].A.nnz == R.psd_blocks[0].order ** 2
        for b in R.psd_blocks:
            assert isinstance(b, PSDBlock) and sp.isspmatrix_csr(b.A)
            assert b.A.shape == (b.order * b.order, R.n_moments)
            o = b.order
            perm = (np.arange(o)[:, None] + o * np.arange(o)[None, :]).ravel()   # (i,j) -> (j,i)
            assert (b.A - b.A[perm]).nnz == 0                                     # symmetric map


def test_odd_degree_rounds_up_and_skips_high_degree_constraints():
    R = MomentRelaxation(unit_ball(3), 3)
    assert (R.requested_degree, R.degree) == (3, 4)
    x = sympy.symbols("x0:2")
    S = PolySystem(list(x), inequalities=[1 - x[0] ** 4 - x[1] ** 4, x[0]])
    R2 = MomentRelaxation(S, 2)
    assert R2.skipped_inequalities == ["g0"]
    assert [b.name for b in R2.psd_blocks] == ["moment", "g1"]
    assert R2.psd_blocks[1].order == 1       # linear inequality at degree 2: a scalar row >= 0


# ------------------------------------------------------------------ blocks vs direct evaluation


@pytest.mark.parametrize("name,make,D", CASES)
def test_blocks_equal_direct_moment_evaluation(name, make, D):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    S = make()
    R = MomentRelaxation(S, D)
    X = _inside_points(name, S, rng)
    P = S.complete(X)
    w = rng.dirichlet(np.ones(len(P)))
    y = R.moments_of(X, w)
    assert y[0] == pytest.approx(1.0, abs=1e-15)
    for b in R.psd_blocks:
        np.testing.assert_allclose(b.matrix(y), _direct_block(S, b, P, w), atol=1e-12)
    rep = R.check(y)
    assert rep.ok, rep
    assert rep.equality_residual <= 1e-15
    assert min(rep.min_eigenvalues.values()) > -1e-10


@pytest.mark.parametrize("name,make,D", CASES)
def test_readout_equals_average_tensor_power(name, make, D):
    rng = np.random.default_rng(7)
    S = make()
    R = MomentRelaxation(S, D)
    X = _inside_points(name, S, rng, N=5)
    y = R.moments_of(X)
    n = len(S.tensor_vars)
    for k in range(1, D + 1):
        ro = R.readout(k)
        assert ro.matrix.shape == (math.comb(n + k - 1, k), R.n_moments)
        assert int(ro.weights.sum()) == n ** k
        T = ro.to_tensor(ro(y))
        ref = sum(_tensor_power(x, k) for x in X) / len(X)
        np.testing.assert_allclose(T, ref, rtol=0, atol=1e-12)
        # orbit coordinates: weighted norm equals the tensor's Frobenius norm
        v = ro(y)
        assert float(ro.weights @ v**2) == pytest.approx(float(np.sum(T**2)), rel=1e-12)
    assert R.readout(2) is R.readout(2)


def test_from_tensor_averages_orbits():
    R = MomentRelaxation(unit_ball(3), 4)
    ro = R.readout(3)
    rng = np.random.default_rng(0)
    T = rng.normal(size=(3, 3, 3))
    v = ro.from_tensor(T)
    sym = sum(np.transpose(T, p) for p in itertools.permutations(range(3))) / 6
    np.testing.assert_allclose(ro.to_tensor(v), sym, atol=1e-14)
    np.testing.assert_allclose(ro.from_tensor(sym), v, atol=1e-14)
    with pytest.raises(InvalidInputError):
        ro.from_tensor(np.zeros((3, 3)))
    with pytest.raises(InvalidInputError):
        ro.to_tensor(np.zeros(3))


def test_readout_of_sparse_ball_uses_x_only():
    R = MomentRelaxation(sparse_ball(3, 1), 4)
    ro = R.readout(2)
    assert ro.n == 3 and ro.orbits.max() == 2
    # E[x_i^2] is a moment of x only (y_i^2 reduces to x_i^2, never the other way)
    cols = ro.matrix[0].indices
    assert R.monomials[cols].tolist() == [[2, 0, 0, 0, 0, 0, 0, 0, 0]]


def test_boolean_readout_folds_squares_with_scale():
    c = 0.5
    R = MomentRelaxation(boolean_cube(2, scale=c), 4)
    ro = R.readout(3)
    # E[x0^3] = c^2 E[x0]
    row = ro.matrix[0]
    assert R.monomials[row.indices].tolist() == [[1, 0]]
    assert row.data.tolist() == [c**2]


# ------------------------------------------------------------------ points outside the set


def test_points_outside_fail_some_check():
    rng = np.random.default_rng(11)
    # unit ball: ||x|| > 1 breaks the localizing matrix of 1 - ||x||^2
    R = MomentRelaxation(unit_ball(3), 4)
    X = _ball_points(rng, 4, 3)
    X[0] = [1.2, 0.0, 0.0]
    rep = R.check(R.moments_of(X))
    assert not rep.ok and rep.worst_block == "unit_norm"
    assert rep.min_eigenvalues["unit_norm"] < -1e-3
    # P_t: a 2t-sparse unit vector completes to a point violating sum s <= t
    t = 1
    Rs = MomentRelaxation(sparse_ball(4, t), 4)
    x = np.zeros((1, 4))
    x[0, :2 * t] = 1 / np.sqrt(2 * t)
    rep = Rs.check(Rs.moments_of(x))
    assert not rep.ok and rep.worst_block == "sparsity"
    assert Rs.check(Rs.moments_of(_sparse_points(rng, 5, 4, t))).ok
    # cube: a non-binary point is not on the variety; refused by moments_of ...
    Rc = MomentRelaxation(boolean_cube(3), 4)
    with pytest.raises(InvalidInputError):
        Rc.moments_of(np.array([[0.5, 1.0, 0.0]]))
    assert not boolean_cube(3).contains([[0.5, 1.0, 0.0]])[0]
    # ... and in the unreduced formulation its moments violate the localizing equalities
    S = boolean_cube(3)
    Su = PolySystem(S.var_names, S.equalities, reduce=False)
    Ru = MomentRelaxation(Su, 4)
    assert Ru.check(Ru.moments_of(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))).ok
    rep = Ru.check(Ru.moments_of(np.array([[0.5, 1.0, 0.0]]), check_support=False))
    assert not rep.ok and rep.equality_residual > 0.1


def test_unreduced_and_reduced_cube_agree_on_readout():
    """The reduced (Groebner) and unreduced formulations give the same readout of a measure."""
    S = boolean_cube(3)
    Ru = MomentRelaxation(PolySystem(S.var_names, S.equalities, reduce=False), 4)
    R = MomentRelaxation(S, 4)
    A_eq, b_eq = Ru.equalities
    assert A_eq.shape[0] > 1 and b_eq[0] == 1 and not b_eq[1:].any()
    X = np.array([[1.0, 0, 1], [0, 0, 1], [1, 1, 1]])
    for k in (1, 2, 3):
        np.testing.assert_allclose(R.readout(k)(R.moments_of(X)), Ru.readout(k)(Ru.moments_of(X)), atol=1e-14)


def test_general_groebner_system_blocks():
    """A user system through the sympy front end: circle arc {x^2 + y^2 = 1, x >= 0}."""
    x, y = sympy.symbols("x y")
    S = PolySystem([x, y], equalities=[sympy.Eq(x**2 + y**2, 1)], inequalities=[x >= 0])
    R = MomentRelaxation(S, 6)
    th = np.random.default_rng(5).uniform(-np.pi / 2, np.pi / 2, size=7)
    P = np.stack([np.cos(th), np.sin(th)], axis=1)
    w = np.full(7, 1 / 7)
    yv = R.moments_of(P)
    for b in R.psd_blocks:
        np.testing.assert_allclose(b.matrix(yv), _direct_block(S, b, P, w), atol=1e-12)
    assert R.check(yv).ok
    rep = R.check(R.moments_of(-P))          # points with x < 0 break the localizing matrix
    assert not rep.ok and rep.worst_block == "g0"


# ------------------------------------------------------------------ limits and validation


def test_memory_refusal_carries_estimate():
    with pytest.raises(ResourceLimitError) as exc:
        MomentRelaxation(unit_ball(30), 4, memory_limit=1e6)
    assert exc.value.estimate_bytes == MomentRelaxation.estimate(unit_ball(30), 4)["bytes"]
    # the paper's P_t at n = 12, degree 4k - 4 = 8 (k = 3): sized without building, then refused
    est = MomentRelaxation.estimate(sparse_ball(12, 3), 8)
    assert est["block_orders"][0] == sum(sparse_ball(12, 3).reduction.counts_by_degree(4))
    assert est["n_moments"] == sum(sparse_ball(12, 3).reduction.counts_by_degree(8))
    assert est["bytes"] > 64 * 2**30
    with pytest.raises(ResourceLimitError):
        MomentRelaxation(sparse_ball(12, 3), 8, memory_limit=64 * 2**30)


def test_unit_ball_30_degree_4_builds():
    R = MomentRelaxation(unit_ball(30), 4)
    assert R.block_orders == [496, 31]
    assert R.n_moments == math.comb(34, 4)
    assert R.psd_blocks[0].A.nnz == 496 * 496


def test_input_validation():
    R = MomentRelaxation(unit_ball(2), 2)
    with pytest.raises(InputTypeError):
        MomentRelaxation("ball", 2)
    with pytest.raises(InputTypeError):
        MomentRelaxation(unit_ball(2), 2.0)
    with pytest.raises(InvalidParameterError):
        MomentRelaxation(unit_ball(2), 0)
    with pytest.raises(InvalidParameterError):
        R.readout(3)
    with pytest.raises(InvalidInputError):
        R.check(np.zeros(3))
    with pytest.raises(InvalidInputError):
        R.moments_of(np.zeros((2, 2)), weights=[0.2, 0.2])
    with pytest.raises(InvalidInputError):
        R.moments_of(np.zeros((2, 2)), weights=[1.5, -0.5])
    with pytest.raises(InvalidInputError):
        R.moments_of(np.zeros((2, 3)))
    with pytest.raises(InvalidInputError):
        R.moments_of(np.array([[np.nan, 0.0]]))


@pytest.mark.parametrize("make,D", [(lambda: sparse_ball(2, 1), 6), (lambda: boolean_cube(3, scale=0.5), 6)])
def test_closed_form_relaxation_equals_groebner_route(make, D):
    """Same standard monomials, identical block and readout matrices via the general Groebner route."""
    S = make()
    twin = PolySystem(S.var_names, S.equalities, S.inequalities, tensor_vars=S.tensor_vars,
                      ranking=S.ranking, inequality_names=S.inequality_names)
    R, Rg = MomentRelaxation(S, D), MomentRelaxation(twin, D)
    assert Rg.system.reduction.kind == "groebner" and R.system.reduction.kind != "groebner"
    assert np.array_equal(R.monomials, Rg.monomials)
    for b, bg in zip(R.psd_blocks, Rg.psd_blocks, strict=True):
        assert b.name == bg.name and abs(b.A - bg.A).max() == 0
    for k in (1, 2, 3):
        assert abs(R.readout(k).matrix - Rg.readout(k).matrix).max() == 0


def test_expectation_map_of_arbitrary_monomials():
    rng = np.random.default_rng(4)
    S = sparse_ball(3, 2)
    R = MomentRelaxation(S, 4)
    X = _sparse_points(rng, 6, 3, 2)
    y = R.moments_of(X)
    E = rng.integers(0, 2, size=(40, S.n_vars))
    E = E[E.sum(1) <= 4]
    np.testing.assert_allclose(R.expectation_map(E) @ y, _eval_monomials(S.complete(X), E).mean(0), atol=1e-13)
    with pytest.raises(InvalidInputError):
        R.expectation_map(np.full((1, S.n_vars), 1))       # degree 9 > 4
    with pytest.raises(InvalidInputError):
        R.expectation_map(np.full((1, S.n_vars), 0.5))


def test_hyperbola_non_pure_power_leading_monomial():
    """{x y = 1}: leading monomial x*y (not a pure power): enumeration path of the counts."""
    x, yv = sympy.symbols("x y")
    S = PolySystem([x, yv], equalities=[x * yv - 1])
    assert S.reduction.leading.tolist() == [[1, 1]]
    R = MomentRelaxation(S, 6)
    est = MomentRelaxation.estimate(S, 6)
    assert est["n_moments"] == R.n_moments == 1 + 2 * 6      # 1, x^j, y^j
    ts = np.array([0.5, 1.5, -2.0, 3.0])
    P = np.stack([ts, 1 / ts], axis=1)
    w = np.full(4, 0.25)
    ym = R.moments_of(P)
    for b in R.psd_blocks:
        np.testing.assert_allclose(b.matrix(ym), _direct_block(S, b, P, w), rtol=1e-12, atol=1e-12)
    assert R.check(ym).ok


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=4, unique=True))
def test_random_grid_varieties_blocks_match_points(pts):
    """Equalities prod_r (x_v - p_rv) = 0 (a grid containing the points); Groebner route vs direct sums."""
    x = sympy.symbols("x0:2")
    eqs = [sympy.expand(sympy.prod([x[v] - a for a in sorted({q[v] for q in pts})])) for v in range(2)]
    S = PolySystem(list(x), equalities=eqs, inequalities=[4 - x[0] ** 2, x[1] + 3])
    R = MomentRelaxation(S, 4)
    P = np.array(pts, dtype=float)
    w = np.full(len(P), 1 / len(P))
    ym = R.moments_of(P)
    for b in R.psd_blocks:
        np.testing.assert_allclose(b.matrix(ym), _direct_block(S, b, P, w), rtol=1e-10, atol=1e-10)
    rep = R.check(ym, tol=1e-8)
    assert rep.equality_residual < 1e-12
    assert rep.min_eigenvalues["moment"] > -1e-8


@pytest.mark.parametrize("make,D", [(lambda: boolean_cube(3, scale=0.5), 4), (lambda: sparse_ball(2, 1), 4),
                                    (lambda: sphere(3), 4)])
def test_reduced_and_unreduced_relaxations_are_the_same_set(make, D):
    """Reduction changes coordinates, not the set (the equalities already form a Groebner basis).

    The unreduced equality subspace is exactly the range of the lift y_std -> (E[NF(m)])_m, and on
    it every unreduced block is the congruence T M_reduced(y) T^T, with T containing an identity.
    """
    S = make()
    Su = PolySystem(S.var_names, S.equalities, S.inequalities, tensor_vars=S.tensor_vars,
                    inequality_names=S.inequality_names, reduce=False)
    R, Ru = MomentRelaxation(S, D), MomentRelaxation(Su, D)
    lift = R.expectation_map(Ru.monomials).toarray()            # (n_full, n_std)
    A_eq, b_eq = Ru.equalities
    E = A_eq[1:].toarray()
    assert np.abs(E @ lift).max() < 1e-12
    assert np.linalg.matrix_rank(E) == Ru.n_moments - R.n_moments
    rng = np.random.default_rng(9)
    y = rng.normal(size=R.n_moments)
    for b, bu in zip(R.psd_blocks, Ru.psd_blocks, strict=True):
        T = R.expectation_map(bu.basis)
        assert T.indices.max() < b.order                       # NF(basis) lies in the reduced basis
        T = T.toarray()[:, : b.order]
        np.testing.assert_allclose(bu.matrix(lift @ y), T @ b.matrix(y) @ T.T, atol=1e-12)




@pytest.mark.parametrize("make", [lambda: unit_ball(3), lambda: sphere(3), lambda: sparse_ball(3, 1),
                                  lambda: boolean_cube(3, 0.5)])
def test_relaxations_pickle(make):
    """Relaxations travel to joblib/dask workers: pickling keeps blocks, readouts and completion."""
    import pickle

    R = MomentRelaxation(make(), 4)
    R2 = pickle.loads(pickle.dumps(R))
    assert R2.block_orders == R.block_orders
    for b, b2 in zip(R.psd_blocks, R2.psd_blocks, strict=True):
        assert abs(b.A - b2.A).max() == 0
    X = np.zeros((1, len(R.system.tensor_vars)))
    X[0, 0] = 0.5 if "cube" in R.system.name else 1.0
    np.testing.assert_array_equal(R2.moments_of(X), R.moments_of(X))


def test_moments_of_multiset_cache_is_the_rebuilt_index_and_follows_the_monomials():
    """``moments_of``'s cached multiset index equals ``to_multiset`` rebuilt, is reused across calls, is
    rebuilt when ``monomials`` is replaced, and ``monomials`` cannot change in place."""
    from sosproj.poly import MomentRelaxation, unit_ball
    from sosproj.poly.monomials import to_multiset

    R = MomentRelaxation(unit_ball(3), 4)
    pts = np.array([[0.6, 0.0, 0.8], [0.0, -1.0, 0.0]])
    y1 = R.moments_of(pts)
    idx = R._multiset_index()
    assert np.array_equal(idx, to_multiset(R.monomials, width=R.degree, pad=R.system.n_vars))
    assert R._multiset_index() is idx and np.array_equal(R.moments_of(pts), y1)
    with pytest.raises(ValueError):
        R.monomials[0, 0] = 1
    # by hand, the moments of the first point: x^a evaluated
    e = R.monomials.astype(float)
    assert np.allclose(y1, 0.5 * (np.prod(pts[0] ** e, axis=1) + np.prod(pts[1] ** e, axis=1)))
    R.monomials = R.monomials[::-1].copy()     # another array: the cache follows it
    assert R._multiset_index() is not idx
    assert np.allclose(R.moments_of(pts), y1[::-1])

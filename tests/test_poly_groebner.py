"""Exact reduction: closed forms against the sympy Groebner route, normal forms against sympy."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.poly import PolySystem, boolean_cube, sparse_ball, sphere, unit_ball
from sosproj.poly.groebner import BooleanReduction, GroebnerReducer, SparseReduction
from sosproj.poly.monomials import monomials_up_to
from sosproj.poly.polynomial import Polynomial


def _nf_dict_from_rows(red, exps):
    rows, out, coef = red.reduce_rows(exps)
    res = [dict() for _ in range(len(exps))]
    for r, e, c in zip(rows, out, coef):
        key = tuple(int(v) for v in e)
        res[r][key] = res[r].get(key, 0.0) + float(c)
    return [{k: v for k, v in d.items() if v != 0} for d in res]


def _groebner_twin(S: PolySystem) -> PolySystem:
    """The same system without its closed-form reduction (general Groebner route)."""
    return PolySystem(S.var_names, S.equalities, S.inequalities, tensor_vars=S.tensor_vars,
                      ranking=S.ranking, inequality_names=S.inequality_names)


def _as_float_dict(d):
    return {k: float(v) for k, v in d.items()}


@pytest.mark.parametrize("n", [1, 2])
def test_sparse_closed_form_equals_groebner(n):
    S = sparse_ball(n, 1)
    G = S.groebner()
    # same leading monomials (so the same standard monomials)
    assert {tuple(r) for r in G.leading.tolist()} == {tuple(r) for r in S.reduction.leading.tolist()}
    E = monomials_up_to(S.n_vars, 5 if n == 1 else 4)
    fast = _nf_dict_from_rows(S.reduction, E)
    for e, f in zip(E.tolist(), fast):
        assert _as_float_dict(G.normal_form(tuple(e))) == f
    # and the standard-monomial counts (closed form) equal the brute-force count
    brute = [sum(1 for e in E.tolist() if sum(e) == j and not any(
        all(a >= b for a, b in zip(e, lm)) for lm in G.leading.tolist())) for j in range(E.sum(1).max() + 1)]
    assert S.reduction.counts_by_degree(len(brute) - 1) == brute


@pytest.mark.parametrize("scale", [1, 0.5, 3])
def test_boolean_closed_form_equals_groebner(scale):
    S = boolean_cube(3, scale=scale)
    G = S.groebner()
    E = monomials_up_to(3, 6)
    fast = _nf_dict_from_rows(S.reduction, E)
    for e, f in zip(E.tolist(), fast):
        exact = G.normal_form(tuple(e))
        assert all(isinstance(c, Fraction) for c in exact.values())
        assert _as_float_dict(exact) == f


def test_groebner_normal_form_matches_sympy_reduced():
    x, y, z = sympy.symbols("x y z")
    eqs = [x**2 + y**2 + z**2 - 1, x * y - sympy.Rational(1, 3) * z]
    S = PolySystem([x, y, z], equalities=eqs)
    G = sympy.groebner(eqs, x, y, z, order="grevlex")
    R = S.reduction
    assert isinstance(R, GroebnerReducer)
    for e in monomials_up_to(3, 5).tolist():
        m = x ** e[0] * y ** e[1] * z ** e[2]
        _, rem = sympy.reduced(m, list(G.exprs), x, y, z, order="grevlex")
        mine = Polynomial.from_terms(R.normal_form(tuple(e)), 3).to_sympy([x, y, z])
        assert sympy.expand(mine - rem) == 0
        # graded order: the normal form never raises the degree
        assert all(sum(k) <= sum(e) for k in R.normal_form(tuple(e)))


def test_sphere_reduction_and_counts():
    S = sphere(4)
    assert S.reduction.leading.tolist() == [[2, 0, 0, 0]]
    E = S.standard_monomials(5)
    assert np.all(E[:, 0] <= 1)
    brute = [sum(1 for e in itertools.product(range(2), *[range(6)] * 3) if sum(e) == j) for j in range(6)]
    assert S.reduction.counts_by_degree(5) == brute
    # x0^2 -> 1 - x1^2 - x2^2 - x3^2, exactly
    nf = S.reduction.normal_form((2, 0, 0, 0))
    assert nf == {(0, 0, 0, 0): 1, (0, 2, 0, 0): -1, (0, 0, 2, 0): -1, (0, 0, 0, 2): -1}


def test_free_reduction_counts():
    assert unit_ball(5).reduction.counts_by_degree(3) == [1, 5, 15, 35]


def test_rational_coefficients_stay_exact():
    x = sympy.Symbol("x")
    S = PolySystem([x], equalities=[3 * x**2 - x])   # x^2 = x/3
    nf = S.reduction.normal_form((5,))
    assert nf == {(1,): Fraction(1, 81)}
    assert S.normal_form(x**5) == x / 81


def test_groebner_errors():
    x = sympy.Symbol("x")
    with pytest.raises(InvalidInputError):
        _ = PolySystem([x], equalities=[x, x - 1]).reduction   # inconsistent: ideal contains 1
    with pytest.raises(InvalidParameterError):
        GroebnerReducer([], 2, order="lex")
    with pytest.raises(InvalidParameterError):
        GroebnerReducer([], 2, ranking=[0, 0])


def test_reducers_agree_on_random_high_degree_monomials():
    rng = np.random.default_rng(3)
    S = sparse_ball(3, 2)
    G = S.groebner()
    E = rng.integers(0, 4, size=(60, S.n_vars))
    for e, f in zip(E.tolist(), _nf_dict_from_rows(S.reduction, E)):
        assert _as_float_dict(G.normal_form(tuple(e))) == f
    B = BooleanReduction(4, 0.25)
    E = rng.integers(0, 5, size=(50, 4))
    _, out, coef = B.reduce_rows(E)
    assert np.array_equal(out, (E > 0).astype(out.dtype))
    assert np.allclose(coef, 0.25 ** (E.sum(1) - (E > 0).sum(1)))
    assert isinstance(S.reduction, SparseReduction)

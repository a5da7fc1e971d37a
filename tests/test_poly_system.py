"""PolySystem front ends (sympy and programmatic), built-in systems, points and residuals."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.poly import Polynomial, PolySystem, boolean_cube, sparse_ball, sphere, unit_ball


def test_sympy_relationals_become_g_geq_0():
    x, y = sympy.symbols("x y")
    S = PolySystem([x, y], inequalities=[x**2 + y**2 <= 1, x >= y, 2 * x - 1],
                   equalities=[sympy.Eq(x * y, sympy.Rational(1, 4))])
    g0, g1, g2 = (g.to_sympy(S.symbols) for g in S.inequalities)
    assert sympy.expand(g0 - (1 - x**2 - y**2)) == 0
    assert sympy.expand(g1 - (x - y)) == 0
    assert sympy.expand(g2 - (2 * x - 1)) == 0
    assert sympy.expand(S.equalities[0].to_sympy(S.symbols) - (x * y - sympy.Rational(1, 4))) == 0
    h = S.equalities[0]
    assert dict(zip(map(tuple, h.exps.tolist()), h.coeffs)) == {(1, 1): 1, (0, 0): Fraction(-1, 4)}


def test_programmatic_front_end_and_names():
    S = PolySystem.from_polynomials(2, equalities=[{(2, 0): 1, (1, 0): -1}],
                                    inequalities=[Polynomial.from_terms({(0, 1): 1}, 2)],
                                    inequality_names=["y_nonneg"], tensor_vars=[1])
    assert S.var_names == ["x0", "x1"] and S.inequality_names == ["y_nonneg"]
    assert S.tensor_vars.tolist() == [1]
    assert S.standard_monomials(2).tolist() == [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


def test_float_coefficients_enter_exactly():
    x = sympy.Symbol("x")
    S = PolySystem([x], equalities=[x**2 - 0.1 * x])
    h = S.equalities[0]
    assert dict(zip(map(tuple, h.exps.tolist()), h.coeffs)) == {(2,): 1, (1,): -Fraction(0.1)}
    assert S.reduction.normal_form((3,)) == {(1,): Fraction(0.1) ** 2}


def test_front_end_errors():
    x, y = sympy.symbols("x y")
    z = sympy.Symbol("z")
    with pytest.raises(InvalidInputError):
        PolySystem([x, y], inequalities=[sympy.sin(x)])
    with pytest.raises(InvalidInputError):
        PolySystem([x], inequalities=[x + z])            # undeclared variable
    with pytest.raises(InvalidInputError):
        PolySystem([x], equalities=[x >= 1])
    with pytest.raises(InvalidInputError):
        PolySystem([x], inequalities=[sympy.Eq(x, 1)])
    with pytest.raises(InputTypeError):
        PolySystem("xy")
    with pytest.raises(InvalidParameterError):
        PolySystem(0)
    with pytest.raises(InvalidParameterError):
        PolySystem(["a", "a"])
    with pytest.raises(InvalidParameterError):
        PolySystem(2, tensor_vars=[0, 2])
    with pytest.raises(InvalidParameterError):
        PolySystem(2, tensor_vars=[])
    with pytest.raises(InvalidInputError):
        PolySystem(2, equalities=[Polynomial.from_terms({(1,): 1}, 1)])
    with pytest.raises(InvalidParameterError):
        PolySystem(2, order="lex")
    with pytest.raises(InvalidParameterError):
        PolySystem(2, inequalities=[{(0, 0): 1}], inequality_names=["a", "b"])
    with pytest.raises(InputTypeError):
        unit_ball(2.5)
    with pytest.raises(InvalidParameterError):
        sparse_ball(3, 0)
    with pytest.raises(InvalidParameterError):
        boolean_cube(3, scale=0.0)


def test_builtin_systems_contain_their_points():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    assert sphere(4).contains(x).all()
    assert unit_ball(4).contains(0.9 * x).all()
    assert not unit_ball(4).contains(1.1 * x).any()
    assert boolean_cube(4, 0.5).contains(0.5 * (x > 0)).all()
    sb = sparse_ball(4, 2)
    z = np.zeros((1, 4))
    z[0, [0, 3]] = [0.6, -0.8]
    assert sb.contains(z).all()
    z3 = np.zeros((1, 4))
    z3[0, :3] = 1 / np.sqrt(3)
    H, G = sb.residuals(z3)
    assert np.abs(H).max() == 0 and G[0, sb.inequality_names.index("sparsity")] == pytest.approx(-1)
    with pytest.raises(InvalidInputError):
        sb.complete(np.zeros((1, 5)))
    assert sb.complete(np.zeros((2, 12))).shape == (2, 12)


def test_normal_form_front_end():
    S = sparse_ball(2, 1)
    x0, x1, s0, s1, y0, y1 = S.symbols
    assert S.normal_form(y0**3 * s0 * x0) == x0**3 * y0
    assert S.normal_form(s0**4 + y1**2) == s0 + x1**2
    c = boolean_cube(2, scale=0.5)
    a, b = c.symbols
    assert c.normal_form(a**3 * b) == a * b / 4
    assert "sparse" in repr(S)


def test_cube_with_extra_inequality_and_public_reduction():
    from sosproj.poly import MomentRelaxation
    from sosproj.poly.groebner import BooleanReduction

    c = 0.5
    g = {(0, 0, 0): 2 * c, (1, 0, 0): -1, (0, 1, 0): -1, (0, 0, 1): -1}     # at most 2 ones
    S = boolean_cube(3, scale=c, inequalities=[g], inequality_names=["row_sparsity"])
    assert S.reduction.kind == "boolean" and S.inequality_names == ["row_sparsity"]
    R = MomentRelaxation(S, 4)
    assert [b.name for b in R.psd_blocks] == ["moment", "row_sparsity"]
    ok = c * np.array([[1.0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert R.check(R.moments_of(ok)).ok
    rep = R.check(R.moments_of(c * np.ones((1, 3))))
    assert not rep.ok and rep.worst_block == "row_sparsity"
    with pytest.raises(InvalidParameterError):
        PolySystem(2, reduction=BooleanReduction(3))
    with pytest.raises(InputTypeError):
        PolySystem(2, reduction="boolean")
    assert PolySystem(2, [{(2, 0): 1, (1, 0): -1}], reduce=False,
                      reduction=BooleanReduction(2)).reduction.kind == "free"

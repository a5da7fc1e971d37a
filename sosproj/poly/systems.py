r"""Built-in polynomial systems of the paper: unit ball, sphere, :math:`\mathcal P_t`, Boolean cube.

* :func:`unit_ball`: :math:`\{\|x\|^2 \le 1\}` (dense k-way marginals), no equalities;
* :func:`sphere`: :math:`\{\|x\|^2 = 1\}` (Groebner route: leading monomial :math:`x_0^2`);
* :func:`sparse_ball`: the paper's system :math:`\mathcal P_t` in variables :math:`(x, s, y)`:
  :math:`\|x\|^2 \le 1,\ s_i^2 = s_i,\ x_i s_i = x_i,\ \sum_i s_i \le t,\ -y_i \le x_i \le y_i,\
  x_i^2 = y_i^2` (closed-form reduction);
* :func:`boolean_cube`: :math:`x_i^2 = c\,x_i` (moments indexed by subsets; the paper's
  normalization :math:`e/\sqrt n` is ``scale = 1/sqrt(n)``).

Examples
--------
>>> from sosproj.poly import unit_ball, sparse_ball, boolean_cube
>>> unit_ball(3).n_vars, sparse_ball(4, 2).n_vars, boolean_cube(5).n_vars
(3, 12, 5)
>>> sparse_ball(4, 2).tensor_vars.tolist()
[0, 1, 2, 3]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from sosproj.poly.groebner import BooleanReduction, FreeReduction, SparseReduction
from sosproj.poly.polynomial import Polynomial
from sosproj.poly.system import PolySystem
from sosproj.validation import check_int, check_positive


def _unit(nv: int, **pos: int) -> tuple[int, ...]:
    v = [0] * nv
    for k, a in pos.items():
        v[int(k[1:])] += a
    return tuple(v)


def _norm_poly(nv: int, cols: np.ndarray, constant: Fraction, sign: int) -> Polynomial:
    """``constant + sign * sum_{i in cols} x_i^2``."""
    terms: dict[tuple[int, ...], Fraction] = {tuple([0] * nv): constant}
    for i in cols:
        e = [0] * nv
        e[int(i)] = 2
        terms[tuple(e)] = Fraction(sign)
    return Polynomial.from_terms(terms, nv)


def unit_ball(n: int) -> PolySystem:
    r"""The unit ball :math:`\{x \in \mathbb{R}^n : 1 - \|x\|^2 \ge 0\}`, no equalities.

    A degree-:math:`2d` relaxation has a moment matrix of order :math:`\binom{n+d}{d}`.

    >>> S = unit_ball(3)
    >>> S.inequality_names, S.reduction.kind
    (['unit_norm'], 'free')
    """
    n = check_int(n, "n", minimum=1)
    g = _norm_poly(n, np.arange(n), Fraction(1), -1)
    return PolySystem(n, inequalities=[g], name=f"unit_ball(n={n})", inequality_names=["unit_norm"],
                      reduction=FreeReduction(n))


def sphere(n: int) -> PolySystem:
    r"""The unit sphere :math:`\{x : \|x\|^2 = 1\}`, reduced by its Groebner basis (exact, grevlex).

    Standard monomials have :math:`x_0`-degree at most 1, so there are
    :math:`\binom{n+j-2}{j} + \binom{n+j-3}{j-1}` of degree ``j``.

    >>> S = sphere(2)
    >>> S.reduction.leading.tolist()
    [[2, 0]]
    """
    n = check_int(n, "n", minimum=1)
    h = _norm_poly(n, np.arange(n), Fraction(-1), +1)
    return PolySystem(n, equalities=[h], name=f"sphere(n={n})", equality_names=["unit_sphere"])


def complete_sparse(X: np.ndarray) -> np.ndarray:
    """The point ``(x, s, y) = (x, 1[x != 0], |x|)`` of :math:`\\mathcal P_t` over each row ``x``.

    >>> import numpy as np
    >>> complete_sparse(np.array([[0.0, -2.0]])).tolist()
    [[0.0, -2.0, 0.0, 1.0, 0.0, 2.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    return np.concatenate([X, (X != 0).astype(np.float64), np.abs(X)], axis=1)


def sparse_ball(n: int, t: int) -> PolySystem:
    r"""The paper's system :math:`\mathcal P_t` in variables :math:`(x, s, y) \in \mathbb{R}^{3n}`.

    Equalities (reduced in closed form): :math:`s_i^2 = s_i`, :math:`x_i s_i = x_i`,
    :math:`y_i^2 = x_i^2`. Inequalities (one localizing matrix each):
    :math:`1 - \|x\|^2 \ge 0`, :math:`t - \sum_i s_i \ge 0`, :math:`y_i - x_i \ge 0`,
    :math:`y_i + x_i \ge 0`. The readout variables are ``x`` (indices ``0..n-1``); a point
    ``x`` completes to ``(x, 1[x != 0], |x|)``.

    >>> S = sparse_ball(3, 1)
    >>> S.n_vars, len(S.inequalities), S.reduction.kind
    (9, 8, 'sparse')
    >>> S.complete([[0.0, -0.5, 0.0]]).tolist()
    [[0.0, -0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.0]]
    """
    n = check_int(n, "n", minimum=1)
    t = check_int(t, "t", minimum=1)
    nv = 3 * n
    red = SparseReduction(n)
    ineqs = [_norm_poly(nv, np.arange(n), Fraction(1), -1)]
    names = ["unit_norm"]
    sparsity = {tuple([0] * nv): Fraction(t)}
    for i in range(n):
        sparsity[_unit(nv, **{f"v{n + i}": 1})] = Fraction(-1)
    ineqs.append(Polynomial.from_terms(sparsity, nv))
    names.append("sparsity")
    for i in range(n):
        ineqs.append(Polynomial.from_terms({_unit(nv, **{f"v{2 * n + i}": 1}): 1,
                                            _unit(nv, **{f"v{i}": 1}): -1}, nv))
        names.append(f"abs_upper[{i}]")
    for i in range(n):
        ineqs.append(Polynomial.from_terms({_unit(nv, **{f"v{2 * n + i}": 1}): 1,
                                            _unit(nv, **{f"v{i}": 1}): 1}, nv))
        names.append(f"abs_lower[{i}]")

    var_names = [f"x{i}" for i in range(n)] + [f"s{i}" for i in range(n)] + [f"y{i}" for i in range(n)]
    # ranking y > s > x makes s_i^2, x_i s_i, y_i^2 the leading monomials in grevlex
    ranking = list(range(2 * n, 3 * n)) + list(range(n, 2 * n)) + list(range(n))
    return PolySystem(var_names, equalities=red.equalities(), inequalities=ineqs, tensor_vars=range(n),
                      ranking=ranking, name=f"sparse_ball(n={n}, t={t})",
                      equality_names=[f"{k}[{i}]" for i in range(n) for k in ("s_idem", "xs", "abs_sq")],
                      inequality_names=names, reduction=red, _completion=complete_sparse, _completion_vars=n)


def boolean_cube(n: int, scale: float = 1.0, *, inequalities: Sequence[Any] = (),
                 inequality_names: Sequence[str] | None = None) -> PolySystem:
    r"""The scaled Boolean cube :math:`\{x : x_i^2 = c\, x_i\} = \{0, c\}^n`, monomials = subsets.

    :math:`\mathrm{NF}(x^a) = c^{|a| - |\mathrm{supp}\,a|} x^{\mathrm{supp}\,a}`; a degree-:math:`2d`
    relaxation has a moment matrix of order :math:`\sum_{j \le d} \binom{n}{j}`. The paper's
    normalization :math:`e/\sqrt n` is ``scale = 1/sqrt(n)``; a float scale enters the
    Groebner route with its exact binary value. Extra ``inequalities`` :math:`g \ge 0` (any form
    :class:`PolySystem` accepts, e.g. a row-sparsity bound :math:`t c - \sum_i x_i \ge 0`) get one
    localizing matrix each, with the cube's closed-form reduction.

    >>> S = boolean_cube(3, scale=0.5)
    >>> S.contains([[0.5, 0.0, 0.5], [1.0, 0.0, 0.0]]).tolist()
    [True, False]
    """
    n = check_int(n, "n", minimum=1)
    c = check_positive(scale, "scale")
    red = BooleanReduction(n, c)
    return PolySystem(n, equalities=red.equalities(), inequalities=inequalities,
                      name=f"boolean_cube(n={n}, scale={c:g})" + (" + inequalities" if inequalities else ""),
                      equality_names=[f"boolean[{i}]" for i in range(n)],
                      inequality_names=inequality_names, reduction=red)


def one_hot(sizes: Sequence[int]) -> PolySystem:
    r"""Categorical attributes in one-hot variables: :math:`x_{i,a}\in\{0,1\}`, one value per attribute.

    Variables :math:`x_{i,a}` (attribute ``i``, value ``a``; attribute blocks in order) with
    :math:`x_{i,a}^2 = x_{i,a}`, :math:`x_{i,a}x_{i,b} = 0` (``a != b``) and
    :math:`\sum_a x_{i,a} = 1`; its points are exactly the records of the domain. The degree-2
    relaxation's moment matrix holds the 1- and 2-way marginals; it has
    :math:`1+\sum_i(n_i-1)+\sum_{i<j}(n_i-1)(n_j-1)` free moments after reduction (Groebner route,
    small domains). The marginal release uses the same matrix through the structured map
    :class:`sosproj.sdp.marginal_admm.OneHotMoment` instead.

    >>> S = one_hot([2, 3])
    >>> S.n_vars, S.contains([[1, 0, 0, 1, 0], [1, 1, 0, 0, 1]]).tolist()
    (5, [True, False])
    """
    sizes = [check_int(s, "sizes", minimum=1) for s in sizes]
    nv = sum(sizes)
    zero = (0,) * nv

    def mono(*idx: int) -> tuple[int, ...]:
        e = [0] * nv
        for i in idx:
            e[i] += 1
        return tuple(e)

    eqs: list[dict[tuple[int, ...], int]] = []
    names: list[str] = []
    start = 0
    for i, n_i in enumerate(sizes):
        block = range(start, start + n_i)
        for a in block:
            eqs.append({mono(a, a): 1, mono(a): -1})
            names.append(f"boolean[{i},{a - start}]")
        for a in block:
            for b in block:
                if a < b:
                    eqs.append({mono(a, b): 1})
                    names.append(f"exclusive[{i},{a - start},{b - start}]")
        total = {mono(a): 1 for a in block}
        total[zero] = -1
        eqs.append(total)
        names.append(f"one_value[{i}]")
        start += n_i
    return PolySystem(nv, equalities=eqs, name=f"one_hot(sizes={list(sizes)})", equality_names=names)


__all__ = ["unit_ball", "sphere", "sparse_ball", "boolean_cube", "complete_sparse", "one_hot"]

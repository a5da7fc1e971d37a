r"""Exact reduction of monomials modulo the equality ideal: Groebner route and closed forms.

For equalities :math:`h_1 = \dots = h_p = 0` let :math:`I = \langle h_1, \dots, h_p\rangle`.
A pseudo-expectation that satisfies the equalities is a linear functional on
:math:`\mathbb{R}[x]/I`; with a Groebner basis :math:`G` of :math:`I` in a *graded*
monomial order, every monomial :math:`m` has a unique normal form
:math:`\mathrm{NF}(m) = \sum_{b} c_b\, b` over the *standard monomials* :math:`b`
(those divisible by no leading monomial of :math:`G`), with
:math:`\deg b \le \deg m` because the order is graded. The moment vector is then
indexed by standard monomials only, and every moment/localizing entry is the
linear form :math:`y \mapsto \sum_b c_b y_b`.

Reducers share one interface (``leading``, ``reduce_rows``, ``counts_by_degree``):

* :class:`GroebnerReducer`: ``sympy.groebner`` over :math:`\mathbb{Q}` (exact), normal
  forms computed by a memoized division with :class:`fractions.Fraction` coefficients,
  one per distinct monomial;
* :class:`FreeReduction`: no equalities (identity);
* :class:`BooleanReduction`: :math:`x_i^2 = c\,x_i` gives
  :math:`\mathrm{NF}(x^a) = c^{|a| - |\mathrm{supp}\,a|} x^{\mathrm{supp}\,a}` (monomials = subsets);
* :class:`SparseReduction`: the equalities of the paper's :math:`\mathcal P_t`,
  :math:`s_i^2 = s_i,\ x_i s_i = x_i,\ y_i^2 = x_i^2` (a Groebner basis with leading
  monomials :math:`s_i^2, x_i s_i, y_i^2` in grevlex with the ranking
  :math:`y > s > x`): per coordinate, :math:`y_i^{b} \to x_i^{2\lfloor b/2\rfloor} y_i^{b \bmod 2}`,
  then :math:`s_i^{c} \to s_i`, then :math:`x_i^{a} s_i \to x_i^{a}` for :math:`a \ge 1`.

The closed forms are checked against the Groebner route in the tests.

Examples
--------
>>> import numpy as np
>>> from sosproj.poly.groebner import BooleanReduction
>>> rows, exps, coef = BooleanReduction(2, scale=0.5).reduce_rows(np.array([[3, 1]]))
>>> exps.tolist(), coef.tolist()
([[1, 1]], [0.25])
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.poly.monomials import (
    EXP_DTYPE,
    divisible_by_any,
    monomials_up_to,
    power_series_counts,
    series_counts,
)
from sosproj.poly.polynomial import Polynomial, as_fraction
from sosproj.validation import check_memory

GRADED_ORDERS = ("grevlex", "grlex")


def series_counts_grouped(factors: list[list[int]], degree: int) -> list[int]:
    """Product of per-variable series, grouping identical factors (repeated squaring).

    >>> series_counts_grouped([[1, 1], [1, 1], [1, 1, 1]], 2)
    [1, 3, 4]
    """
    out = [1] + [0] * degree
    groups: dict[tuple[int, ...], int] = {}
    for f in factors:
        groups[tuple(f)] = groups.get(tuple(f), 0) + 1
    for f, cnt in groups.items():
        out = series_counts([out, power_series_counts(list(f), cnt, degree)], degree)
    return out


class Reduction:
    """Interface of an exact monomial reduction (see the module docstring).

    >>> import numpy as np
    >>> from sosproj.poly.groebner import SparseReduction
    >>> R = SparseReduction(1)                       # variables (x, s, y)
    >>> R.is_standard(np.array([[1, 1, 0], [0, 1, 1]])).tolist()
    [False, True]
    >>> R.standard_monomials(2).tolist()
    [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [2, 0, 0], [1, 0, 1], [0, 1, 1]]
    """

    #: short name used in reports
    kind: str = "abstract"
    n_vars: int
    #: int array (g, n_vars) of leading monomials; standard monomials are divisible by none
    leading: np.ndarray

    def reduce_rows(self, exps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Normal forms of the rows of ``exps`` as a sparse triple ``(row, exps_out, coeff)``.

        ``NF(x^{exps[r]}) = sum_{t: row[t] = r} coeff[t] * x^{exps_out[t]}``, every
        ``exps_out[t]`` standard.
        """
        raise NotImplementedError

    def counts_by_degree(self, degree: int) -> list[int]:
        """Number of standard monomials of each degree ``0..degree`` (exact integers).

        Closed form (a product of per-variable series) when every leading monomial is a
        pure power :math:`x_v^{a}`; otherwise the standard monomials are enumerated
        (vectorized, degree by degree), never the matrices.
        """
        L = np.asarray(self.leading)
        if len(L) == 0 or np.all((L > 0).sum(axis=1) == 1):
            cap = np.full(self.n_vars, degree + 1, dtype=np.int64)
            for row in L:
                v = int(np.flatnonzero(row)[0])
                cap[v] = min(cap[v], int(row[v]))
            factors = [[1] * int(min(c, degree + 1)) for c in cap]
            return series_counts_grouped(factors, degree)
        # enumeration: at most C(n+d-1, d) * n candidates of the top degree exist at once
        top = math.comb(self.n_vars + degree - 1, degree) if degree else 1
        check_memory(4.0 * top * (2 * self.n_vars + 16),
                     f"enumerating the standard monomials of degree <= {degree} in {self.n_vars} variables")
        return [len(b) for b in monomials_up_to(self.n_vars, degree, self.leading, by_degree=True)]

    def is_standard(self, exps: np.ndarray) -> np.ndarray:
        """Mask of the rows of ``exps`` that are standard monomials."""
        return ~divisible_by_any(np.asarray(exps), self.leading)

    def standard_monomials(self, degree: int) -> np.ndarray:
        """All standard monomials of degree ``<= degree`` in graded order (constant first)."""
        return monomials_up_to(self.n_vars, degree, self.leading)

    #: maximum number of terms of a normal form of a monomial (None = unknown)
    max_terms: int | None = None


class FreeReduction(Reduction):
    r"""No equalities: every monomial is standard; :math:`\binom{n+d-1}{d}` monomials of degree d.

    >>> FreeReduction(3).counts_by_degree(2)
    [1, 3, 6]
    """

    kind = "free"
    max_terms = 1

    def __init__(self, n_vars: int) -> None:
        self.n_vars = int(n_vars)
        self.leading = np.zeros((0, self.n_vars), dtype=EXP_DTYPE)

    def reduce_rows(self, exps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        exps = np.asarray(exps)
        return np.arange(len(exps)), exps, np.ones(len(exps))

    def counts_by_degree(self, degree: int) -> list[int]:
        return [math.comb(self.n_vars + j - 1, j) if self.n_vars else int(j == 0) for j in range(degree + 1)]


class BooleanReduction(Reduction):
    r"""Closed form for :math:`x_i^2 = c\, x_i` (all variables): monomials are subsets.

    :math:`\mathrm{NF}(x^a) = c^{|a| - |\mathrm{supp}\,a|}\, x^{\mathrm{supp}\,a}`;
    :math:`\binom{n}{j}` standard monomials of degree ``j``.

    >>> BooleanReduction(4).counts_by_degree(2)
    [1, 4, 6]
    """

    kind = "boolean"
    max_terms = 1

    def __init__(self, n_vars: int, scale: float = 1.0) -> None:
        self.n_vars = int(n_vars)
        self.scale = float(scale)
        self.leading = (2 * np.eye(self.n_vars, dtype=EXP_DTYPE)).astype(EXP_DTYPE)

    def reduce_rows(self, exps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        exps = np.asarray(exps)
        supp = (exps > 0).astype(EXP_DTYPE)
        excess = exps.sum(axis=1, dtype=np.int64) - supp.sum(axis=1, dtype=np.int64)
        coef = self.scale ** excess.astype(np.float64) if self.scale != 1.0 else np.ones(len(exps))
        return np.arange(len(exps)), supp, coef

    def counts_by_degree(self, degree: int) -> list[int]:
        return [math.comb(self.n_vars, j) for j in range(degree + 1)]

    def equalities(self) -> list[Polynomial]:
        """The defining equalities :math:`x_i^2 - c x_i` as exact polynomials."""
        c = as_fraction(self.scale, "scale")
        out = []
        for i in range(self.n_vars):
            e2 = [0] * self.n_vars
            e1 = [0] * self.n_vars
            e2[i], e1[i] = 2, 1
            out.append(Polynomial.from_terms({tuple(e2): 1, tuple(e1): -c}, self.n_vars))
        return out


class SparseReduction(Reduction):
    r"""Closed form for the equalities of :math:`\mathcal P_t` in variables ``(x, s, y)``.

    Variables ``0..n-1`` are ``x``, ``n..2n-1`` are ``s``, ``2n..3n-1`` are ``y``.
    Per coordinate the standard monomials are :math:`x_i^a y_i^b` (``b <= 1``),
    :math:`s_i` and :math:`s_i y_i`; Hilbert series per coordinate
    :math:`(1+z)/(1-z) + z + z^2`.

    >>> SparseReduction(1).counts_by_degree(3)
    [1, 3, 3, 2]
    """

    kind = "sparse"
    max_terms = 1

    def __init__(self, n: int) -> None:
        self.n = int(n)
        self.n_vars = 3 * self.n
        n = self.n
        L = np.zeros((3 * n, 3 * n), dtype=EXP_DTYPE)
        i = np.arange(n)
        L[i, n + i] = 2                 # s_i^2
        L[n + i, i] = 1                 # x_i s_i
        L[n + i, n + i] = 1
        L[2 * n + i, 2 * n + i] = 2     # y_i^2
        self.leading = L

    def reduce_rows(self, exps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        exps = np.asarray(exps)
        n = self.n
        a = exps[:, :n].astype(np.int64)
        c = exps[:, n:2 * n].astype(np.int64)
        b = exps[:, 2 * n:].astype(np.int64)
        a = a + 2 * (b // 2)            # y^2 -> x^2
        b = b % 2
        c = np.minimum(c, 1)            # s^2 -> s
        c = np.where(a >= 1, 0, c)      # x s -> x
        out = np.concatenate([a, c, b], axis=1).astype(EXP_DTYPE)
        return np.arange(len(exps)), out, np.ones(len(exps))

    def counts_by_degree(self, degree: int) -> list[int]:
        # (1+z)/(1-z) + z + z^2 = 1 + 3z + 3z^2 + 2z^3 + 2z^4 + ...
        factor = [1, 3, 3] + [2] * max(0, degree - 2)
        return power_series_counts(factor[: degree + 1], self.n, degree)

    def equalities(self) -> list[Polynomial]:
        """The equalities :math:`s_i^2 - s_i`, :math:`x_i s_i - x_i`, :math:`y_i^2 - x_i^2`."""
        n, nv = self.n, self.n_vars
        out = []
        for i in range(n):
            def e(i: int = i, **kw: int) -> tuple[int, ...]:
                v = [0] * nv
                for key, val in kw.items():
                    v[{"x": i, "s": n + i, "y": 2 * n + i}[key]] = val
                return tuple(v)
            out.append(Polynomial.from_terms({e(s=2): 1, e(s=1): -1}, nv))
            out.append(Polynomial.from_terms({e(x=1, s=1): 1, e(x=1): -1}, nv))
            out.append(Polynomial.from_terms({e(y=2): 1, e(x=2): -1}, nv))
        return out


class GroebnerReducer(Reduction):
    r"""Exact reduction by a reduced Groebner basis computed with ``sympy.groebner`` over QQ.

    Parameters
    ----------
    equalities : the polynomials :math:`h_j` (:class:`Polynomial`, exact coefficients).
    n_vars : number of variables.
    ranking : permutation of ``range(n_vars)``: variable ``ranking[0]`` is the largest
        in the monomial order (default: ``0 > 1 > ...``).
    order : ``"grevlex"`` (default) or ``"grlex"``; must be graded so that
        :math:`\deg \mathrm{NF}(m) \le \deg m`.

    Notes
    -----
    Normal forms are memoized per monomial (``normal_form``), each computed once by
    the division algorithm with :class:`~fractions.Fraction` arithmetic.

    Examples
    --------

    >>> from sosproj.poly.polynomial import Polynomial
    >>> h = Polynomial.from_terms({(2, 0): 1, (0, 2): 1, (0, 0): -1}, 2)   # x^2 + y^2 - 1
    >>> R = GroebnerReducer([h], 2)
    >>> R.normal_form((4, 0)) == {(0, 4): 1, (0, 2): -2, (0, 0): 1}
    True
    """

    kind = "groebner"

    def __init__(self, equalities: list[Polynomial], n_vars: int, ranking: Any = None,
                 order: str = "grevlex") -> None:
        import sympy

        if order not in GRADED_ORDERS:
            raise InvalidParameterError(f"order must be one of {GRADED_ORDERS} (a graded order)")
        self.n_vars = int(n_vars)
        self.order = order
        rank = np.arange(self.n_vars) if ranking is None else np.asarray(ranking, dtype=np.int64)
        if sorted(rank.tolist()) != list(range(self.n_vars)):
            raise InvalidParameterError("ranking must be a permutation of range(n_vars)")
        self.ranking = rank
        gens = sympy.symbols(f"v0:{self.n_vars}") if self.n_vars else ()
        ranked_gens = [gens[r] for r in rank]
        polys = [h for h in equalities if h.n_terms]
        self.basis: list[Polynomial] = []
        self._rules: list[tuple[tuple[int, ...], list[tuple[np.ndarray, Fraction]]]] = []
        self._supports: list[tuple[np.ndarray, np.ndarray]] = []
        if polys:
            exprs = [h.to_sympy(gens) for h in polys]
            G = sympy.groebner(exprs, *ranked_gens, order=order, domain="QQ")
            if list(G.exprs) == [1]:
                raise InvalidInputError("the equalities are inconsistent (their ideal contains 1): "
                                        "no point satisfies them; check the constraints")
            for g in G.polys:
                terms = g.terms(order=order)
                d: dict[tuple[int, ...], Fraction] = {}
                for mono, c in terms:
                    e = [0] * self.n_vars
                    for pos, a in enumerate(mono):
                        e[rank[pos]] = int(a)
                    d[tuple(e)] = as_fraction(c)
                lead_e = [0] * self.n_vars
                for pos, a in enumerate(terms[0][0]):
                    lead_e[rank[pos]] = int(a)
                lead = tuple(lead_e)
                lc = d.pop(lead)
                tail = [(np.array(e, dtype=np.int64), -c / lc) for e, c in d.items()]
                self.basis.append(Polynomial.from_terms(
                    {lead: 1, **{tuple(t.tolist()): -c for t, c in tail}}, self.n_vars))
                self._append_rule(lead, tail)
        self.leading = (np.array([r[0] for r in self._rules], dtype=EXP_DTYPE).reshape(-1, self.n_vars)
                        if polys else np.zeros((0, self.n_vars), dtype=EXP_DTYPE))
        self._memo: dict[tuple[int, ...], dict[tuple[int, ...], Fraction]] = {}
        self.max_terms = None if self._rules else 1

    def _append_rule(self, lead: tuple[int, ...], tail: list[tuple[np.ndarray, Fraction]]) -> None:
        self._rules.append((lead, tail))
        le = np.array(lead, dtype=np.int64)
        supp = np.flatnonzero(le)
        self._supports.append((supp, le[supp]))

    def normal_form(self, mono: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
        """Exact normal form ``{standard exponent tuple: Fraction}`` of one monomial (memoized).

        >>> from sosproj.poly.polynomial import Polynomial
        >>> R = GroebnerReducer([Polynomial.from_terms({(2,): 3, (1,): -1}, 1)], 1)   # 3x^2 = x
        >>> R.normal_form((3,))
        {(1,): Fraction(1, 9)}
        """
        mono = tuple(int(v) for v in mono)
        hit = self._memo.get(mono)
        if hit is not None:
            return hit
        arr = np.array(mono, dtype=np.int64)
        rule = None
        for (supp, vals), (lead, tail) in zip(self._supports, self._rules):
            if np.all(arr[supp] >= vals):
                rule = (np.array(lead, dtype=np.int64), tail)
                break
        if rule is None:
            res = {mono: Fraction(1)}
        else:
            lead_arr, tail = rule
            cof = arr - lead_arr
            acc: dict[tuple[int, ...], Fraction] = {}
            for t_exp, c in tail:
                for m2, c2 in self.normal_form(tuple((cof + t_exp).tolist())).items():
                    acc[m2] = acc.get(m2, Fraction(0)) + c * c2
            res = {m: c for m, c in acc.items() if c != 0}
        self._memo[mono] = res
        return res

    def reduce_rows(self, exps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        exps = np.asarray(exps)
        std = self.is_standard(exps)
        rows = [np.flatnonzero(std)]
        outs = [exps[std]]
        coefs = [np.ones(int(std.sum()))]
        r_list: list[int] = []
        e_list: list[tuple[int, ...]] = []
        c_list: list[float] = []
        for r in np.flatnonzero(~std):
            for m, c in self.normal_form(tuple(exps[r].tolist())).items():
                r_list.append(int(r))
                e_list.append(m)
                c_list.append(float(c))
        if r_list:
            rows.append(np.array(r_list, dtype=np.int64))
            outs.append(np.array(e_list, dtype=EXP_DTYPE).reshape(-1, self.n_vars))
            coefs.append(np.array(c_list))
        return (np.concatenate(rows), np.concatenate(outs, axis=0).astype(EXP_DTYPE),
                np.concatenate(coefs))


__all__ = ["Reduction", "FreeReduction", "BooleanReduction", "SparseReduction", "GroebnerReducer",
           "GRADED_ORDERS"]

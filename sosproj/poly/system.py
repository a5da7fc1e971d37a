r"""Polynomial systems :math:`\{h_j(x) = 0,\ g_i(x) \ge 0\}`: sympy front end and programmatic one.

A :class:`PolySystem` holds variables, equalities :math:`h_j = 0` and inequalities
:math:`g_i \ge 0` with exact rational coefficients, the *readout* (tensor)
variables whose moments a relaxation releases, and the exact reduction of
monomials modulo the equality ideal (Groebner basis by default, or a closed form
for the built-in systems of :mod:`sosproj.poly.systems`).

Examples
--------
>>> import sympy
>>> from sosproj.poly import PolySystem
>>> x, y = sympy.symbols("x y")
>>> S = PolySystem([x, y], equalities=[x**2 + y**2 - 1], inequalities=[x >= 0])
>>> S.n_vars, len(S.equalities), len(S.inequalities)
(2, 1, 1)
>>> S.normal_form(x**3)
-x*y**2 + x
>>> S.contains([[0.6, 0.8], [-0.6, 0.8], [1.0, 1.0]]).tolist()
[True, False, False]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.poly.groebner import FreeReduction, GroebnerReducer, Reduction
from sosproj.poly.polynomial import Polynomial
from sosproj.validation import check_array, check_choice

ConstraintLike = Any  # sympy expression / relational, Polynomial, or {exponent tuple: coefficient}


class PolySystem:
    r"""A basic semi-algebraic set :math:`K = \{x \in \mathbb{R}^N : h_j(x) = 0,\ g_i(x) \ge 0\}`.

    Parameters
    ----------
    variables : an int ``N`` (variables named ``x0..x{N-1}``), a sequence of names, or a
        sequence of sympy symbols.
    equalities : constraints :math:`h = 0`, each a sympy expression (meaning ``expr == 0``),
        a ``sympy.Eq``, a :class:`~sosproj.poly.polynomial.Polynomial` or a dict
        ``{exponent tuple: coefficient}``.
    inequalities : constraints :math:`g \ge 0`: expressions (meaning ``expr >= 0``),
        sympy relationals (``x**2 <= 1`` becomes ``1 - x**2 >= 0``), polynomials or dicts.
    tensor_vars : indices of the readout variables (default: all), the :math:`x` whose
        moment tensors :math:`\tilde{\mathbb E}[x^{\otimes k}]` are read out.
    reduce : ``True`` (default) reduces monomials modulo the equality ideal exactly
        (Groebner basis over QQ) so the moment vector lives on standard monomials; ``False``
        keeps every monomial and imposes :math:`\tilde{\mathbb E}[h\,m] = 0` as explicit linear
        equalities instead (the unreduced Lasserre formulation, for comparison).
    order, ranking : the graded monomial order (``"grevlex"``/``"grlex"``) and the variable
        ranking (a permutation; ``ranking[0]`` is the largest variable) of the Groebner basis.
    name : a label used in reports.
    equality_names, inequality_names : labels of the constraints (default ``h0.., g0..``).
    reduction : optional closed-form :class:`~sosproj.poly.groebner.Reduction` (e.g.
        ``BooleanReduction``) used instead of the Groebner route. It must be the exact reduction
        modulo ``equalities`` (same normal forms); :meth:`groebner` gives the general route to
        test it against. Ignored when ``reduce=False``.

    >>> S = PolySystem(2, inequalities=[{(0, 0): 1, (2, 0): -1, (0, 2): -1}])   # x0^2 + x1^2 <= 1
    >>> S.inequalities[0].degree, S.tensor_vars.tolist()
    (2, [0, 1])
    """

    def __init__(self, variables: int | Sequence[Any], equalities: Sequence[ConstraintLike] = (),
                 inequalities: Sequence[ConstraintLike] = (), *, tensor_vars: Sequence[int] | None = None,
                 reduce: bool = True, order: str = "grevlex", ranking: Sequence[int] | None = None,
                 name: str = "system", equality_names: Sequence[str] | None = None,
                 inequality_names: Sequence[str] | None = None,
                 reduction: Reduction | None = None,
                 _reduction: Reduction | None = None,
                 _completion: Callable[[np.ndarray], np.ndarray] | None = None,
                 _completion_vars: int | None = None) -> None:
        self._symbols, self.var_names = _parse_variables(variables)
        self.n_vars = len(self.var_names)
        self.name = str(name)
        self.order = check_choice(order, "order", ("grevlex", "grlex"))
        self.ranking = None if ranking is None else np.asarray(ranking, dtype=np.int64)
        if not isinstance(reduce, (bool, np.bool_)):
            raise InputTypeError("reduce must be True or False")
        self.reduce = bool(reduce)
        self.equalities = [self._to_poly(c, "equalities", equality=True) for c in equalities]
        self.inequalities = [self._to_poly(c, "inequalities", equality=False) for c in inequalities]
        self.equality_names = _names(equality_names, len(self.equalities), "h", "equality_names")
        self.inequality_names = _names(inequality_names, len(self.inequalities), "g", "inequality_names")
        tv = np.arange(self.n_vars) if tensor_vars is None else np.asarray(tensor_vars)
        if tv.ndim != 1 or tv.size == 0 or not np.issubdtype(tv.dtype, np.integer):
            raise InvalidParameterError("tensor_vars must be a non-empty 1-D sequence of variable indices")
        if tv.min() < 0 or tv.max() >= self.n_vars or len(np.unique(tv)) != len(tv):
            raise InvalidParameterError(f"tensor_vars must be distinct indices in [0, {self.n_vars})")
        self.tensor_vars = tv.astype(np.int64)
        red = reduction if reduction is not None else _reduction
        if red is not None:
            if not isinstance(red, Reduction):
                raise InputTypeError("reduction must be a sosproj.poly.groebner.Reduction")
            if red.n_vars != self.n_vars:
                raise InvalidParameterError(f"reduction has {red.n_vars} variables; the system has {self.n_vars}")
            if not self.reduce:
                red = None
        self._reduction = red
        self._completion = _completion
        self._completion_vars = _completion_vars
        self._groebner: GroebnerReducer | None = None

    # ------------------------------------------------------------------ parsing
    @classmethod
    def from_polynomials(cls, n_vars: int, equalities: Sequence[Polynomial | Mapping[Any, Any]] = (),
                         inequalities: Sequence[Polynomial | Mapping[Any, Any]] = (),
                         **kwargs: Any) -> PolySystem:
        """Programmatic front end: constraints as :class:`Polynomial` or ``{exponents: coefficient}``.

        >>> S = PolySystem.from_polynomials(1, equalities=[{(2,): 1, (1,): -1}])   # x^2 = x
        >>> S.standard_monomials(3).tolist()
        [[0], [1]]
        """
        return cls(int(n_vars), equalities, inequalities, **kwargs)

    def _to_poly(self, c: ConstraintLike, what: str, *, equality: bool) -> Polynomial:
        if isinstance(c, Polynomial):
            if c.n_vars != self.n_vars:
                raise InvalidInputError(f"{what}: a Polynomial has {c.n_vars} variables; the system has "
                                        f"{self.n_vars}")
            return c
        if isinstance(c, Mapping):
            return Polynomial.from_terms(c, self.n_vars)
        import sympy

        if isinstance(c, (bool, sympy.logic.boolalg.BooleanAtom)):
            raise InvalidInputError(f"{what}: a constraint evaluated to a constant truth value; "
                                    "write it as a polynomial expression")
        expr = sympy.sympify(c)
        if isinstance(expr, sympy.Eq):
            if not equality:
                raise InvalidInputError(f"{what} must be inequalities; pass Eq(...) in equalities")
            expr = expr.lhs - expr.rhs
        elif isinstance(expr, sympy.core.relational.Relational):
            if equality:
                raise InvalidInputError(f"{what} must be equalities (expr == 0 or Eq); got an inequality")
            if isinstance(expr, (sympy.GreaterThan, sympy.StrictGreaterThan)):
                expr = expr.lhs - expr.rhs
            elif isinstance(expr, (sympy.LessThan, sympy.StrictLessThan)):
                expr = expr.rhs - expr.lhs
            else:
                raise InvalidInputError(f"{what}: use >=, <= or Eq relations")
        return Polynomial.from_sympy(expr, self.symbols)

    @property
    def symbols(self) -> list[Any]:
        """The sympy symbols of the variables (created on first use).

        >>> PolySystem(2).symbols
        [x0, x1]
        """
        if self._symbols is None:
            import sympy

            self._symbols = list(sympy.symbols(self.var_names)) if self.var_names else []
            if len(self.var_names) == 1:
                self._symbols = [sympy.Symbol(self.var_names[0])]
        return self._symbols

    # --------------------------------------------------------------- reduction
    @property
    def reduction(self) -> Reduction:
        """The exact monomial reduction in use (closed form where known, else Groebner).

        >>> PolySystem(2).reduction.kind, PolySystem(1, equalities=[{(2,): 1, (0,): -1}]).reduction.kind
        ('free', 'groebner')
        """
        if self._reduction is None:
            if self.reduce and self.equalities:
                self._reduction = self.groebner()
            else:
                self._reduction = FreeReduction(self.n_vars)
        return self._reduction

    def groebner(self) -> GroebnerReducer:
        """The general Groebner route (``sympy.groebner`` over QQ), even where a closed form exists.

        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> PolySystem([x], equalities=[x**3 - x]).groebner().leading.tolist()
        [[3]]
        """
        if self._groebner is None:
            ranking = self.ranking
            self._groebner = GroebnerReducer(self.equalities, self.n_vars, ranking=ranking, order=self.order)
        return self._groebner

    @property
    def explicit_equalities(self) -> list[Polynomial]:
        """Equalities the reduction does not remove (all of them when ``reduce=False``).

        >>> h = {(2,): 1, (1,): -1}
        >>> len(PolySystem(1, [h]).explicit_equalities), len(PolySystem(1, [h], reduce=False).explicit_equalities)
        (0, 1)
        """
        return [] if self.reduce else list(self.equalities)

    def standard_monomials(self, degree: int) -> np.ndarray:
        """Exponent rows of the standard monomials of degree ``<= degree`` (graded, constant first).

        >>> PolySystem(2, equalities=[{(2, 0): 1, (0, 0): -1}]).standard_monomials(2).tolist()
        [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]
        """
        return self.reduction.standard_monomials(int(degree))

    def normal_form(self, expr: Any) -> Any:
        """Exact normal form of a sympy polynomial modulo the equalities (a sympy expression).

        >>> import sympy
        >>> x = sympy.Symbol("x")
        >>> PolySystem([x], equalities=[x**2 - x]).normal_form(3 * x**5 + 1)
        3*x + 1
        """
        import sympy

        p = Polynomial.from_sympy(expr, self.symbols)
        if p.n_terms == 0:
            return sympy.Integer(0)
        rows, exps, coef = self.reduction.reduce_rows(p.exps)
        if self.reduction.kind == "groebner":
            acc: dict[tuple[int, ...], Any] = {}
            for e, c in zip(p.exps, p.coeffs):
                for m, cm in self.reduction.normal_form(tuple(e.tolist())).items():  # type: ignore[attr-defined]
                    acc[m] = acc.get(m, 0) + c * cm
            return Polynomial.from_terms(acc, self.n_vars).to_sympy(self.symbols)
        acc2: dict[tuple[int, ...], Any] = {}
        for r, e, c in zip(rows, exps, coef):
            key = tuple(int(v) for v in e)
            acc2[key] = acc2.get(key, 0) + p.coeffs[int(r)] * Fraction(float(c))
        return Polynomial.from_terms(acc2, self.n_vars).to_sympy(self.symbols)

    # ----------------------------------------------------------------- points
    def complete(self, points: Any) -> np.ndarray:
        """Points over all variables; systems with a completion accept readout coordinates only.

        For :func:`~sosproj.poly.systems.sparse_ball`, ``x`` completes to
        ``(x, 1[x != 0], |x|)``.

        >>> from sosproj.poly import sparse_ball
        >>> sparse_ball(2, 1).complete([[0.0, -0.5]]).tolist()
        [[0.0, -0.5, 0.0, 1.0, 0.0, 0.5]]
        """
        P = check_array(points, "points", ndim=2)
        if P.shape[1] == self.n_vars:
            return P
        if self._completion is not None and P.shape[1] == self._completion_vars:
            return self._completion(P)
        allowed = f"{self.n_vars}" + (f" or {self._completion_vars}" if self._completion is not None else "")
        raise InvalidInputError(f"points must have {allowed} columns (one per variable); got {P.shape[1]}")

    def residuals(self, points: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(H, G)``: equality values ``H[r, j] = h_j(p_r)`` and inequality values ``G[r, i] = g_i(p_r)``.

        >>> from sosproj.poly import unit_ball
        >>> H, G = unit_ball(2).residuals([[0.6, 0.0]])
        >>> H.shape, G.round(2).tolist()
        ((1, 0), [[0.64]])
        """
        P = self.complete(points)
        H = np.stack([h.evaluate(P) for h in self.equalities], axis=1) if self.equalities else \
            np.zeros((len(P), 0))
        G = np.stack([g.evaluate(P) for g in self.inequalities], axis=1) if self.inequalities else \
            np.zeros((len(P), 0))
        return H, G

    def contains(self, points: Any, tol: float = 1e-9) -> np.ndarray:
        """Mask of the points that satisfy every constraint up to ``tol``.

        >>> from sosproj.poly import boolean_cube
        >>> boolean_cube(2).contains([[1.0, 0.0], [0.5, 0.0]]).tolist()
        [True, False]
        """
        H, G = self.residuals(points)
        return np.all(np.abs(H) <= tol, axis=1) & np.all(G >= -tol, axis=1)

    def __repr__(self) -> str:
        return (f"PolySystem({self.name!r}, n_vars={self.n_vars}, equalities={len(self.equalities)}, "
                f"inequalities={len(self.inequalities)}, reduction={self.reduction.kind!r})")


def _parse_variables(variables: Any) -> tuple[list[Any] | None, list[str]]:
    if isinstance(variables, (bool, np.bool_)):
        raise InputTypeError("variables must be an int or a sequence of names or sympy symbols")
    if isinstance(variables, (int, np.integer)):
        if variables < 1:
            raise InvalidParameterError("variables must be >= 1 (the number of variables)")
        return None, [f"x{i}" for i in range(int(variables))]
    if isinstance(variables, str) or not isinstance(variables, Sequence):
        raise InputTypeError("variables must be an int or a sequence of names or sympy symbols")
    if len(variables) == 0:
        raise InvalidParameterError("variables must not be empty")
    if all(isinstance(v, str) for v in variables):
        names = list(variables)
        syms = None
    else:
        import sympy

        if not all(isinstance(v, sympy.Symbol) for v in variables):
            raise InputTypeError("variables must be all strings or all sympy symbols")
        syms = list(variables)
        names = [v.name for v in syms]
    if len(set(names)) != len(names):
        raise InvalidParameterError("variable names must be distinct")
    return syms, names


def _names(names: Sequence[str] | None, count: int, prefix: str, what: str) -> list[str]:
    if names is None:
        return [f"{prefix}{i}" for i in range(count)]
    names = [str(s) for s in names]
    if len(names) != count:
        raise InvalidParameterError(f"{what} must have one label per constraint ({count})")
    return names


__all__ = ["PolySystem"]

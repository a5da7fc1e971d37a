r"""Sparse polynomials with exact rational coefficients (the light programmatic front end).

A :class:`Polynomial` is :math:`p(x) = \sum_t c_t x^{a_t}`: an integer exponent array
``exps`` (one row per term) and a tuple of :class:`fractions.Fraction`
coefficients. Float coefficients are converted exactly (their binary value), so
the Groebner reduction never rounds.

Examples
--------
>>> from sosproj.poly.polynomial import Polynomial
>>> p = Polynomial.from_terms({(2, 0): 1, (0, 0): -1}, n_vars=2)   # x0^2 - 1
>>> p.degree, p.n_vars
(2, 2)
>>> float(p.evaluate([[3.0, 5.0]])[0])
8.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Rational, Real
from typing import Any

import numpy as np

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError


def as_fraction(c: Any, name: str = "coefficient") -> Fraction:
    """Exact rational value of an int, Fraction, float or sympy number.

    >>> as_fraction(0.5), as_fraction(3)
    (Fraction(1, 2), Fraction(3, 1))
    """
    if isinstance(c, Fraction):
        return c
    if isinstance(c, (bool, np.bool_)):
        raise InputTypeError(f"{name} must be a number, not a boolean")
    if isinstance(c, (Integral, np.integer)):
        return Fraction(int(c))
    if isinstance(c, Rational):
        return Fraction(int(c.numerator), int(c.denominator))
    if hasattr(c, "is_Rational") and getattr(c, "is_Rational", False):  # sympy Rational / Integer
        return Fraction(int(c.p), int(c.q))
    if hasattr(c, "is_Number") and getattr(c, "is_Number", False):  # sympy Float
        c = float(c)
    if isinstance(c, (Real, np.floating)):
        f = float(c)
        if not np.isfinite(f):
            raise InvalidParameterError(f"{name} must be finite")
        return Fraction(f)
    raise InputTypeError(f"{name} must be a rational or real number; got {type(c).__name__}")


@dataclass(frozen=True, eq=False)
class Polynomial:
    r"""A polynomial :math:`\sum_t c_t x^{a_t}` in ``n_vars`` variables, exact coefficients.

    Attributes
    ----------
    exps : int array (n_terms, n_vars), distinct rows, no zero coefficients.
    coeffs : tuple of ``Fraction`` (one per row).

    >>> Polynomial.from_terms({(1, 1): 2}, n_vars=2).coeffs
    (Fraction(2, 1),)
    """

    exps: np.ndarray
    coeffs: tuple[Fraction, ...]

    @classmethod
    def from_terms(cls, terms: Mapping[Sequence[int], Any], n_vars: int) -> Polynomial:
        """Build from ``{exponent tuple: coefficient}`` (zero coefficients are dropped).

        >>> Polynomial.from_terms({(0,): 0, (1,): 1}, 1).exps.tolist()
        [[1]]
        """
        acc: dict[tuple[int, ...], Fraction] = {}
        for e, c in terms.items():
            e = tuple(int(v) for v in e)
            if len(e) != n_vars or min(e, default=0) < 0:
                raise InvalidInputError(f"each exponent tuple must have {n_vars} non-negative entries")
            acc[e] = acc.get(e, Fraction(0)) + as_fraction(c)
        acc = {e: c for e, c in acc.items() if c != 0}
        if acc:
            exps = np.array(list(acc.keys()), dtype=np.int64).reshape(len(acc), n_vars)
        else:
            exps = np.zeros((0, n_vars), dtype=np.int64)
        return cls(exps, tuple(acc.values()))

    @classmethod
    def from_sympy(cls, expr: Any, symbols: Sequence[Any]) -> Polynomial:
        """Convert a sympy expression that is polynomial in ``symbols`` (exact rational coefficients).

        >>> import sympy
        >>> x, y = sympy.symbols("x y")
        >>> Polynomial.from_sympy(x**2 - y / 3, [x, y]).coeffs
        (Fraction(1, 1), Fraction(-1, 3))
        """
        import sympy

        try:
            expr = sympy.sympify(expr)
            if _has_float(expr):  # floats enter with their exact binary value, as Fraction(float) does
                expr = expr.xreplace({f: sympy.Rational(float(f)) for f in expr.atoms(sympy.Float)})
            poly = sympy.Poly(expr, *symbols, domain="QQ")
        except (sympy.PolynomialError, sympy.GeneratorsNeeded, sympy.polys.polyerrors.CoercionFailed,
                TypeError, ValueError) as exc:
            raise InvalidInputError("a constraint is not a polynomial in the system's variables with "
                                    "rational coefficients; declare every variable it uses") from exc
        return cls.from_terms({tuple(m): sympy.Rational(c) for m, c in poly.terms()}, len(symbols))

    @property
    def n_vars(self) -> int:
        return int(self.exps.shape[1])

    @property
    def n_terms(self) -> int:
        return int(self.exps.shape[0])

    @property
    def degree(self) -> int:
        """Total degree (0 for constants and the zero polynomial)."""
        return int(self.exps.sum(axis=1).max(initial=0))

    def float_coeffs(self) -> np.ndarray:
        """Coefficients as float64 (for assembling matrices)."""
        return np.array([float(c) for c in self.coeffs], dtype=np.float64)

    def evaluate(self, points: Any) -> np.ndarray:
        """Values at the rows of ``points`` (float, shape (N, n_vars)).

        >>> p = Polynomial.from_terms({(1, 0): 1, (0, 1): 1}, 2)
        >>> p.evaluate([[1.0, 2.0], [0.5, 0.5]]).tolist()
        [3.0, 1.0]
        """
        P = np.asarray(points, dtype=np.float64)
        if P.ndim != 2 or P.shape[1] != self.n_vars:
            raise InvalidInputError(f"points must have shape (N, {self.n_vars})")
        out = np.zeros(P.shape[0])
        for e, c in zip(self.exps, self.float_coeffs()):
            supp = np.flatnonzero(e)
            out += c * np.prod(P[:, supp] ** e[supp], axis=1)
        return out

    def to_sympy(self, symbols: Sequence[Any]) -> Any:
        """The sympy expression of this polynomial in ``symbols``.

        >>> import sympy
        >>> x = sympy.symbols("x")
        >>> Polynomial.from_terms({(2,): 1, (0,): -1}, 1).to_sympy([x])
        x**2 - 1
        """
        import sympy

        expr = sympy.Integer(0)
        for e, c in zip(self.exps, self.coeffs):
            term = sympy.Rational(c.numerator, c.denominator)
            for v, a in zip(symbols, e):
                if a:
                    term = term * v ** int(a)
            expr = expr + term
        return expr

    def __repr__(self) -> str:
        return f"Polynomial(n_vars={self.n_vars}, n_terms={self.n_terms}, degree={self.degree})"


def _has_float(expr: Any) -> bool:
    try:
        import sympy

        return bool(expr.atoms(sympy.Float))
    except AttributeError:
        return False


__all__ = ["Polynomial", "as_fraction"]

r"""Polynomial systems and their moment (sum-of-squares) relaxations.

Monomials (:mod:`~sosproj.poly.monomials`), exact polynomials
(:mod:`~sosproj.poly.polynomial`), systems with a sympy front end
(:mod:`~sosproj.poly.system`), exact reduction modulo the equalities
(:mod:`~sosproj.poly.groebner`), moment/localizing matrices and readouts
(:mod:`~sosproj.poly.relaxation`) and the paper's built-in systems
(:mod:`~sosproj.poly.systems`).

>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> MomentRelaxation(unit_ball(30), 4).psd_blocks[0].order
496
"""

from sosproj.poly.atoms import AtomResult, extract_atoms
from sosproj.poly.polynomial import Polynomial
from sosproj.poly.relaxation import MomentCheck, MomentRelaxation, PSDBlock, Readout
from sosproj.poly.system import PolySystem
from sosproj.poly.systems import boolean_cube, one_hot, sparse_ball, sphere, unit_ball

__all__ = [
    "PolySystem", "Polynomial", "MomentRelaxation", "PSDBlock", "Readout", "MomentCheck",
    "unit_ball", "sphere", "sparse_ball", "boolean_cube", "one_hot", "extract_atoms", "AtomResult",
]

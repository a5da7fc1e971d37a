"""Convex sets with projections, support functions and membership tests.

>>> import numpy as np
>>> from sosproj.sets import Intersection, PSDCone, Box
>>> S = Intersection([PSDCone(), Box(-1, 1)], method="dykstra")
>>> bool(S.contains(np.eye(2)))
True
"""

from sosproj._lazy import attach

_NAMES = {
    "ConvexSet": "sosproj.sets.base",
    "ProjectionInfo": "sosproj.sets.base",
    "SupportResult": "sosproj.sets.base",
    "ConvergenceWarning": "sosproj.policy",
    "PSDCone": "sosproj.sets.psd",
    "Spectraplex": "sosproj.sets.psd",
    "PSDFrobeniusBall": "sosproj.sets.psd",
    "FrobeniusBall": "sosproj.sets.simple",
    "Box": "sosproj.sets.simple",
    "SymmetricMatrices": "sosproj.sets.simple",
    "Intersection": "sosproj.sets.intersection",
    "BoundedDiagonalPSD": "sosproj.sets.bounded_diagonal_psd",
    "PseudoMomentSet": "sosproj.sets.pseudo_moment",
    "cvxpy_project": "sosproj.sets.reference",
    "cvxpy_support": "sosproj.sets.reference",
}
_SUBMODULES = ["base", "psd", "simple", "intersection", "reference", "bounded_diagonal_psd",
               "newton_bounded_diagonal", "pseudo_moment"]

__getattr__, __dir__, __all__ = attach(__name__, _SUBMODULES, _NAMES)

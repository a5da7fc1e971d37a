"""Pseudo-moment tensor sets used by the SoS checks.

:func:`tensor_set` builds ``PseudoMomentSet(MomentRelaxation(system, degree), k)`` (the set
:math:`\\{\\tilde{\\mathbb E}_\\mu[x^{\\otimes k}]\\}` over degree-``degree`` pseudo-distributions
satisfying ``system``). The relaxation layer is part of sosproj: an ``ImportError`` or
``AttributeError`` here is a bug, so it propagates and the check reports ``"error"``
(never ``"skip"``).
"""

from __future__ import annotations

from typing import Any

from sosproj import poly
from sosproj.errors import InvalidParameterError
from sosproj.poly.relaxation import MomentRelaxation
from sosproj.sets.pseudo_moment import PseudoMomentSet

SYSTEMS = ("unit_ball", "sparse_ball", "boolean_cube")


def tensor_set(system_name: str, n: int, degree: int, k: int, **kwargs: Any) -> Any:
    """``PseudoMomentSet(MomentRelaxation(<system_name>(n, **kwargs), degree), k)``.

    ``system_name`` is ``"unit_ball"``, ``"sparse_ball"`` (needs ``t``) or ``"boolean_cube"``
    (optional ``scale``).
    """
    if system_name not in SYSTEMS:
        raise InvalidParameterError(f"unknown system {system_name!r}; use one of {', '.join(SYSTEMS)}")
    system = getattr(poly, system_name)(n, **kwargs)
    return PseudoMomentSet(MomentRelaxation(system, degree=degree), k)

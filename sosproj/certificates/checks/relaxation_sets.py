"""Pseudo-moment tensor sets used by the SoS checks, with a "not available" path.

:func:`tensor_set` builds ``PseudoMomentSet(MomentRelaxation(system, degree), k)`` (the set
:math:`\\{\\tilde{\\mathbb E}_\\mu[x^{\\otimes k}]\\}` over degree-``degree`` pseudo-distributions
satisfying ``system``), refusing sizes whose moment matrix is too large to solve in a
check, and raising :class:`~sosproj.certificates.registry.CheckUnavailable` when the
relaxation layer is missing.
"""

from __future__ import annotations

from typing import Any

from sosproj.certificates.registry import CheckUnavailable


def tensor_set(system_name: str, n: int, degree: int, k: int, **kwargs: Any) -> Any:
    """``PseudoMomentSet(MomentRelaxation(<system_name>(n, **kwargs), degree), k)``.

    ``system_name`` is ``"unit_ball"``, ``"sparse_ball"`` (needs ``t``) or ``"boolean_cube"``
    (optional ``scale``).
    """
    try:
        from sosproj import poly
        from sosproj.poly.relaxation import MomentRelaxation

        system = getattr(poly, system_name)(n, **kwargs)
    except (ImportError, AttributeError) as exc:
        raise CheckUnavailable(f"sosproj.poly.{system_name} / MomentRelaxation ({exc})") from exc
    R = MomentRelaxation(system, degree=degree)
    try:
        from sosproj.sets.pseudo_moment import PseudoMomentSet

        return PseudoMomentSet(R, k)
    except (ImportError, AttributeError) as exc:
        raise CheckUnavailable(f"PseudoMomentSet ({exc})") from exc

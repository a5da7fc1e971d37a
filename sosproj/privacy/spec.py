r"""Typed privacy semantics: the neighbouring relation and a frozen privacy specification.

A differential-privacy guarantee is a statement about pairs of *adjacent* datasets; the
adjacency is part of the guarantee, not a comment in a docstring. :class:`Adjacency` names
the relations sosproj supports and :class:`PrivacySpec` bundles everything a release
promises: :math:`(\varepsilon, \delta)`, the adjacency, the :math:`\ell_2`-sensitivity of
the measurement under that adjacency and the calibration rule that turned them into a
noise scale. Mechanisms build one ``PrivacySpec`` at the door (validating every field
once) and carry it, unchanged, into their release and into the accountant's charge.

Relations (in the style of dp_accounting's ``NeighboringRelation``):

* ``REPLACE_ONE`` (bounded DP): one record is replaced by any other admissible record;
  the number of records ``m`` is public.
* ``ADD_REMOVE`` (unbounded DP): one record is added or removed; ``m`` is private.

Examples
--------
>>> spec = PrivacySpec.create(epsilon=1, delta=1e-6, sensitivity=0.5)
>>> spec.adjacency is Adjacency.REPLACE_ONE, spec.epsilon, spec.sensitivity
(True, 1.0, 0.5)
>>> spec.as_dict()["adjacency"]
'replace-one'
>>> Adjacency.parse("add-remove")
<Adjacency.ADD_REMOVE: 'add-remove'>
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from sosproj.errors import InvalidParameterError
from sosproj.validation import check_choice, check_delta, check_epsilon, check_positive

__all__ = ["Adjacency", "PrivacySpec", "CALIBRATIONS"]

#: Calibration rules of :func:`sosproj.privacy.calibration.gaussian_sigma` (the one home of this list).
CALIBRATIONS: tuple[str, ...] = ("analytic", "paper", "classical")


class Adjacency(enum.Enum):
    """Neighbouring relation of a privacy guarantee."""

    REPLACE_ONE = "replace-one"
    ADD_REMOVE = "add-remove"

    @classmethod
    def parse(cls, value: Any, name: str = "adjacency") -> Adjacency:
        """Accept an :class:`Adjacency` or its string value; refuse anything else with a clear error."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            for member in cls:
                if value == member.value:
                    return member
        choices = ", ".join(repr(m.value) for m in cls)
        raise InvalidParameterError(f"{name} must be one of {choices} (or an Adjacency); got {value!r}")

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class PrivacySpec:
    r"""What a release promises: :math:`(\varepsilon, \delta)`-DP under ``adjacency`` for a
    measurement of :math:`\ell_2`-sensitivity ``sensitivity``, calibrated by ``calibration``.

    Build it with :meth:`create` (which validates); the constructor trusts its arguments.
    """

    epsilon: float
    delta: float
    adjacency: Adjacency
    sensitivity: float
    calibration: str = "analytic"

    @classmethod
    def create(cls, *, epsilon: Any, delta: Any, sensitivity: Any,
               adjacency: Any = Adjacency.REPLACE_ONE, calibration: Any = "analytic") -> PrivacySpec:
        """Validate every field once (the door) and return the frozen specification."""
        return cls(epsilon=check_epsilon(epsilon), delta=check_delta(delta),
                   adjacency=Adjacency.parse(adjacency),
                   sensitivity=check_positive(sensitivity, "sensitivity"),
                   calibration=check_choice(calibration, "calibration", CALIBRATIONS))

    def with_sensitivity(self, sensitivity: float) -> PrivacySpec:
        """The same guarantee for a measurement of another (already computed) sensitivity."""
        return PrivacySpec(self.epsilon, self.delta, self.adjacency, float(sensitivity), self.calibration)

    def as_dict(self) -> dict[str, Any]:
        """Plain-dict form for sidecars, JSON reports and logs."""
        return {"epsilon": self.epsilon, "delta": self.delta, "adjacency": self.adjacency.value,
                "sensitivity": self.sensitivity, "calibration": self.calibration}

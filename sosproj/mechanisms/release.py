r"""The frozen result object returned by every matrix/tensor mechanism, and the one shape of its
privacy record.

A :class:`Release` carries the released value, the noise scale and the frozen
:class:`~sosproj.privacy.spec.PrivacySpec` it was made under (epsilon, delta, adjacency,
sensitivity, calibration); ``epsilon``, ``delta``, ``sensitivity`` and ``calibration``
stay readable as properties, and :attr:`Release.privacy` is the plain-dict form
(:func:`privacy_record`, shared by every release type).

>>> import numpy as np
>>> from sosproj.privacy.spec import PrivacySpec
>>> spec = PrivacySpec.create(epsilon=1.0, delta=1e-6, sensitivity=1.0)
>>> r = Release(value=np.eye(2), sigma=1.0, spec=spec, mechanism="perturb_and_project")
>>> r.privacy                     # doctest: +NORMALIZE_WHITESPACE
{'epsilon': 1.0, 'delta': 1e-06, 'adjacency': 'replace-one', 'sensitivity': 1.0,
 'calibration': 'analytic', 'sigma': 1.0}
>>> r.epsilon, r.spec.adjacency.value
(1.0, 'replace-one')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.privacy.spec import PrivacySpec
from sosproj.testing import noise_is_disabled


def privacy_record(spec: PrivacySpec, sigma: float) -> dict[str, Any]:
    """The privacy parameters of a release as a plain dict (sidecars, logs): the spec and ``sigma``.

    >>> privacy_record(PrivacySpec.create(epsilon=1, delta=1e-6, sensitivity=2), 3.0)["adjacency"]
    'replace-one'
    """
    return {**spec.as_dict(), "sigma": float(sigma)}


def noise_info() -> dict[str, Any]:
    """What a mechanism adds to its release's ``info`` about the noise switch of :mod:`sosproj.testing`.

    ``{"noise_disabled": True}`` when the release was made inside
    :func:`sosproj.testing.noise_disabled` (no noise at all, no privacy), else ``{}``.

    >>> noise_info()
    {}
    """
    return {"noise_disabled": True} if noise_is_disabled() else {}


@dataclass(frozen=True, init=False)
class Release:
    """A differentially private release.

    Attributes
    ----------
    value : the released array (post-processed noisy measurement).
    sigma : standard deviation of the Gaussian noise that was added.
    spec : the :class:`~sosproj.privacy.spec.PrivacySpec` of the guarantee
        (epsilon, delta, adjacency, sensitivity, calibration).
    mechanism : name of the mechanism (and method).
    info : diagnostics of the post-processing (projection method, iterations,
        residuals, convergence; ``noise_disabled`` when made under the test switch);
        never anything computed from the raw data other than the release itself.

    Build it with ``spec=``; for convenience the guarantee may instead be given as
    ``epsilon, delta, sensitivity, calibration`` (then under replace-one adjacency).
    """

    value: np.ndarray
    sigma: float
    spec: PrivacySpec
    mechanism: str
    info: dict[str, Any] = field(default_factory=dict)

    def __init__(self, value: np.ndarray, sigma: float, epsilon: float | None = None,
                 delta: float | None = None, sensitivity: float | None = None,
                 calibration: str = "analytic", mechanism: str = "", info: dict[str, Any] | None = None,
                 *, spec: PrivacySpec | None = None) -> None:
        if spec is None:
            if epsilon is None or delta is None or sensitivity is None:
                raise InvalidParameterError("Release needs spec= (a PrivacySpec) or epsilon, delta and "
                                            "sensitivity")
            spec = PrivacySpec.create(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                      calibration=calibration)
        elif not isinstance(spec, PrivacySpec):
            raise InvalidParameterError("spec must be a PrivacySpec; build it with PrivacySpec.create(...)")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "sigma", float(sigma))
        object.__setattr__(self, "spec", spec)
        object.__setattr__(self, "mechanism", str(mechanism))
        object.__setattr__(self, "info", dict(info or {}))

    @property
    def epsilon(self) -> float:
        """The guarantee's epsilon (``spec.epsilon``)."""
        return self.spec.epsilon

    @property
    def delta(self) -> float:
        """The guarantee's delta (``spec.delta``)."""
        return self.spec.delta

    @property
    def sensitivity(self) -> float:
        """The l2-sensitivity the noise was calibrated to (``spec.sensitivity``)."""
        return self.spec.sensitivity

    @property
    def calibration(self) -> str:
        """``"analytic"``, ``"paper"`` or ``"classical"`` (``spec.calibration``)."""
        return self.spec.calibration

    @property
    def privacy(self) -> dict[str, Any]:
        """The privacy parameters as a plain dict, adjacency included (:func:`privacy_record`)."""
        return privacy_record(self.spec, self.sigma)


__all__ = ["Release", "privacy_record", "noise_info"]

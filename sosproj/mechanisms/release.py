"""The frozen result object returned by every matrix/tensor mechanism.

>>> import numpy as np
>>> r = Release(value=np.eye(2), sigma=1.0, epsilon=1.0, delta=1e-6, sensitivity=1.0,
...             calibration="analytic", mechanism="perturb_and_project")
>>> r.privacy
{'epsilon': 1.0, 'delta': 1e-06, 'sensitivity': 1.0, 'sigma': 1.0, 'calibration': 'analytic'}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Release:
    """A differentially private release.

    Attributes
    ----------
    value : the released array (post-processed noisy measurement).
    sigma : standard deviation of the Gaussian noise that was added.
    epsilon, delta : the privacy guarantee, under the mechanism's stated adjacency.
    sensitivity : the l2-sensitivity the noise was calibrated to.
    calibration : ``"analytic"``, ``"paper"`` or ``"classical"``.
    mechanism : name of the mechanism (and method).
    info : diagnostics of the post-processing (projection method, iterations,
        residuals, convergence); never anything computed from the raw data other
        than the release itself.
    """

    value: np.ndarray
    sigma: float
    epsilon: float
    delta: float
    sensitivity: float
    calibration: str
    mechanism: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def privacy(self) -> dict[str, Any]:
        """The privacy parameters as a plain dict (for sidecars and logs)."""
        return {"epsilon": self.epsilon, "delta": self.delta, "sensitivity": self.sensitivity,
                "sigma": self.sigma, "calibration": self.calibration}


__all__ = ["Release"]

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


@dataclass(frozen=True, eq=False)
class MarginalTablesRelease:
    r"""A private release of the marginal tables of a workload over a categorical domain.

    The tables are stored through their residuals (:mod:`sosproj.data.residuals`), so every table
    of an attribute set inside a workload set is consistent with the others and sums to ``m``.

    Attributes
    ----------
    domain : the public :class:`~sosproj.data.domain.Domain`.
    k : the largest workload order; workload : the workload's attribute sets (sorted tuples).
    residuals : released residual vector (read-only); m : the number of records (public under
        replace-one; the released total under add/remove).
    spec : the :class:`~sosproj.privacy.spec.PrivacySpec` (epsilon, delta, adjacency, sensitivity).
    method : ``"allocation/reconstruction"``; info : public diagnostics (noise scales per residual
        set, solver report); nothing computed from the raw data other than the release itself.
    """

    domain: Any
    k: int
    workload: tuple[tuple[int, ...], ...]
    residuals: np.ndarray
    m: int
    spec: Any
    method: str
    info: dict[str, Any] = field(default_factory=dict)
    layout: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        r = np.array(self.residuals, dtype=np.float64)
        r.setflags(write=False)
        object.__setattr__(self, "residuals", r)

    @property
    def total(self) -> float:
        """Sum of every released table (``m`` under replace-one)."""
        return float(self.layout.residual(self.residuals, ()))

    @property
    def privacy(self) -> dict[str, Any]:
        """The privacy specification as a plain dict."""
        return self.spec.as_dict()

    def table(self, attrs: Any) -> np.ndarray:
        """Released counts of ``attrs`` (indices or names), one axis per attribute in the order given.

        ``attrs`` must lie inside one workload set (or be empty).
        """
        idx = self.domain.indices(attrs)
        key = tuple(sorted(idx))
        if key not in self.layout.res_pos:
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError(
                f"attributes {list(attrs)} are not inside any workload set of this release; "
                "release with a workload containing them")
        t = self.layout.marginal(self.residuals, key)
        order = [key.index(a) for a in idx]
        return np.ascontiguousarray(np.transpose(t, order)) if len(order) > 1 else t

    def query(self, attrs: Any) -> float:
        """Binary data: released count of records whose attributes ``attrs`` are all 1."""
        if not self.domain.is_binary:
            from sosproj.errors import InvalidParameterError

            raise InvalidParameterError("query() is for binary domains; use table(attrs) for categorical data")
        idx = tuple(dict.fromkeys(self.domain.indices(list(dict.fromkeys(attrs)))))
        if not idx:
            return self.total
        return float(self.table(idx)[(1,) * len(idx)])

    def tables(self) -> dict[tuple[int, ...], np.ndarray]:
        """Every workload table, keyed by its (sorted) attribute tuple."""
        return {w: self.layout.marginal(self.residuals, w) for w in self.workload}


__all__.append("MarginalTablesRelease")

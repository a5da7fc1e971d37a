r"""Perturb-and-project (the paper's Algorithms 1 and 2).

Given an input :math:`A` whose :math:`\ell_2` (Frobenius) sensitivity under the
caller's adjacency is at most :math:`\Delta`, release

.. math::  \hat\Pi = \Pi_S(A + W), \qquad W \sim N(0, \sigma^2 I),

with :math:`\sigma` from :func:`~sosproj.privacy.calibration.gaussian_sigma`.
Privacy comes from the Gaussian mechanism alone (the projection is
post-processing, so any projection algorithm, exact or not, keeps the
guarantee). Utility (paper, Theorem "Guarantees of perturb-and-project" with the
corrected constant, see ``docs/errata.md``): for every compact convex
:math:`S`, :math:`\mathbb E\|\Pi_S(A+W) - \Pi_S(A)\|_F^2 \le \sigma\, G(S)`.

Algorithm 2 is the same call with an :class:`~sosproj.sets.Intersection` using
``method="averaged"`` and ``project_options={"steps": t}``.

Examples
--------
>>> import numpy as np
>>> from sosproj import perturb_and_project
>>> from sosproj.sets import Box
>>> rel = perturb_and_project(np.zeros(3), Box(-1, 1), epsilon=1.0, delta=1e-6,
...                           sensitivity=1.0, rng=0)
>>> bool(np.all(np.abs(rel.value) <= 1)), round(rel.sigma, 4)
(True, 4.2247)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sosproj.errors import InputTypeError
from sosproj.mechanisms.release import Release, noise_info
from sosproj.privacy.calibration import spec_sigma
from sosproj.privacy.noise import gaussian_noise
from sosproj.privacy.spec import Adjacency, PrivacySpec
from sosproj.rng import RngLike, as_generator
from sosproj.sets.base import ConvexSet
from sosproj.threads import with_thread_policy

if TYPE_CHECKING:
    from sosproj.privacy.accountant import PrivacyAccountant


@with_thread_policy
def perturb_and_project(A: Any, S: ConvexSet, *, epsilon: float, delta: float, sensitivity: float,
                        calibration: str = "analytic", rng: RngLike = None,
                        project_options: dict[str, Any] | None = None,
                        accountant: PrivacyAccountant | None = None,
                        adjacency: Adjacency | str = Adjacency.REPLACE_ONE) -> Release:
    r"""Release :math:`\Pi_S(A + W)` with Gaussian noise calibrated to :math:`(\varepsilon,\delta)`.

    Parameters
    ----------
    A : the private input (array of any shape the set accepts).
    S : a :class:`~sosproj.sets.base.ConvexSet` containing every admissible input (public).
    epsilon, delta : the privacy guarantee.
    sensitivity : :math:`\Delta \ge \|A - A'\|_F` for all inputs adjacent under
        ``adjacency``; the caller is responsible for this bound.
    calibration : ``"analytic"`` (default), ``"paper"`` or ``"classical"``.
    rng : SPEC 7 generator spec; ``None`` = fresh OS entropy (use that for real releases).
    project_options : keyword options for ``S.project`` (``tol``, ``max_iter``, ``steps``, ``on_fail``).
    accountant : optional :class:`~sosproj.privacy.accountant.PrivacyAccountant`, charged
        before any noise is drawn; a charge over budget or under another adjacency raises
        and releases nothing.
    adjacency : the neighbouring relation ``sensitivity`` holds under
        (:class:`~sosproj.privacy.spec.Adjacency` or its value; default replace-one).

    Returns
    -------
    Release with ``value`` in ``S``, its :class:`~sosproj.privacy.spec.PrivacySpec` and the
    projection diagnostics in ``info``.

    Examples
    --------
    >>> import numpy as np
    >>> from sosproj.sets import Spectraplex
    >>> rel = perturb_and_project(np.eye(3) / 3, Spectraplex(1.0), epsilon=1.0, delta=1e-6,
    ...                           sensitivity=0.1, rng=0)
    >>> bool(Spectraplex(1.0).contains(rel.value)), rel.info["projection"]["exact"]
    (True, True)
    """
    spec = PrivacySpec.create(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                              adjacency=adjacency, calibration=calibration)
    if not isinstance(S, ConvexSet):
        raise InputTypeError(f"S must be a sosproj ConvexSet; got {type(S).__name__}")
    A = S._check_input(A, "A")  # finite, non-empty, and the set's shape
    sigma = spec_sigma(spec)
    if accountant is not None:
        accountant.charge_gaussian(sigma=sigma, spec=spec, label="perturb_and_project")
    gen = as_generator(rng)
    noisy = A + gaussian_noise(A.shape, sigma, gen)
    value, pinfo = S.project(noisy, return_info=True, **(project_options or {}))
    return Release(value=value, sigma=sigma, spec=spec, mechanism=f"perturb_and_project[{type(S).__name__}]",
                   info={"projection": pinfo.as_dict(), "noise": "gaussian", **noise_info()})


__all__ = ["perturb_and_project"]

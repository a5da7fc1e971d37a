r"""Private pair-wise cosine similarities (the paper's Algorithms 3 and 4).

Input: vectors :math:`v_1, \dots, v_n \in \mathbb R^m` (the rows of ``V``). Public rule:
each row is scaled to unit length, :math:`u_i = v_i/\|v_i\|`, so the target is the
cosine-similarity matrix :math:`A = UU^T` (:math:`A_{ij} = \cos\angle(v_i, v_j)`).

Adjacency (paper, Section "Results"): ``V`` and ``V'`` are adjacent when
:math:`\|UU^T - U'U'^T\|_F \le \Delta` (``sensitivity``). The mechanism draws one
i.i.d. :math:`N(0, \sigma^2)` matrix :math:`W \in \mathbb R^{n\times n}` (all :math:`n^2`
entries), :math:`\sigma` = :func:`~sosproj.privacy.calibration.gaussian_sigma`
:math:`(\varepsilon, \delta, \Delta)`, i.e. the Gaussian mechanism on :math:`A` with
:math:`\ell_2`-sensitivity :math:`\Delta`; everything after is post-processing of
:math:`Y = A + W`, starting with its symmetric part
:math:`\mathrm{sym}(Y) = A + (W + W^T)/2` (off-diagonal noise variance :math:`\sigma^2/2`,
diagonal :math:`\sigma^2`; the same law as noising the upper triangle with
off-diagonal entries weighted by :math:`\sqrt 2`). See ``docs/cosine.md`` for the proof.

Methods (all draw the same :math:`W` for the same ``rng``, so they can be compared on
one draw):

* ``"exact"``: Algorithm 3, :math:`\Pi_S(\mathrm{sym}\,Y)` onto
  :math:`S = \{X \succeq 0, X_{ii} \le 1\}` by the Newton projection
  (:class:`~sosproj.sets.bounded_diagonal_psd.BoundedDiagonalPSD`);
* ``"dykstra"``: the same projection by Dykstra's algorithm (slow baseline);
* ``"alternating"``: Algorithm 4 with the errata fixed (noise from
  ``gaussian_sigma``, :math:`S_1 = \{X \succeq 0, \|X\|_F \le n\}`): ``steps`` rounds of
  :math:`X \leftarrow \frac12(\Pi_{S_1}(X) + \Pi_{S_2}(X))`,
  :math:`S_2 = \{|X_{ij}| \le 1\}`, default :math:`t = \lceil 2\ln n\rceil`; returns a
  point, not the projection, and not necessarily in :math:`S`;
* ``"gaussian"``: no projection, :math:`\mathrm{sym}(Y)` (the Gaussian mechanism).

Examples
--------
>>> import numpy as np
>>> V = np.random.default_rng(0).standard_normal((5, 3))
>>> rel = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, rng=1)
>>> rel.value.shape, rel.info["method"]
((5, 5), 'exact')
>>> bool(np.all(np.diag(rel.value) <= 1.0))
True
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from sosproj.errors import InvalidInputError, InvalidParameterError
from sosproj.mechanisms.release import Release, noise_info
from sosproj.policy import OnFail, check_on_fail
from sosproj.privacy.calibration import spec_sigma
from sosproj.privacy.noise import gaussian_noise
from sosproj.privacy.spec import Adjacency, PrivacySpec
from sosproj.rng import RngLike, as_generator
from sosproj.sets.base import symmetrize
from sosproj.threads import with_thread_policy
from sosproj.validation import check_array, check_choice, check_int, check_memory

if TYPE_CHECKING:
    from sosproj.privacy.accountant import PrivacyAccountant

METHODS = ("exact", "dykstra", "alternating", "gaussian")
ALTERNATING_STEPS_FACTOR = 2.0


def normalize_rows(V: Any) -> np.ndarray:
    r"""Scale every row of ``V`` to unit Euclidean length (the public rule of the mechanism).

    Rows are first divided by their largest absolute entry, so huge or tiny rows
    neither overflow nor underflow. A row of zeros has no direction and raises
    :class:`~sosproj.errors.InvalidInputError` (the message names no row or value).

    >>> normalize_rows([[3.0, 4.0], [0.0, 2.0]])
    array([[0.6, 0.8],
           [0. , 1. ]])
    """
    V = check_array(V, "V", ndim=2)
    if V.shape[1] == 0:
        raise InvalidInputError("V must have at least one column (vectors of dimension >= 1)")
    peak = np.max(np.abs(V), axis=1, keepdims=True)
    if np.any(peak == 0):
        raise InvalidInputError("V has a row of zeros: its cosine similarities are undefined; remove "
                                "or replace all-zero rows before the release")
    U = V / peak
    return U / np.linalg.norm(U, axis=1, keepdims=True)


def default_alternating_steps(n: int) -> int:
    r"""Default number of averaged-projection rounds :math:`t = \max(1, \lceil 2\ln n\rceil)` (Algorithm 4).

    >>> default_alternating_steps(1000)
    14
    """
    return max(1, math.ceil(ALTERNATING_STEPS_FACTOR * math.log(max(n, 1))))


@with_thread_policy
def release_cosine_similarities(V: Any, *, epsilon: float, delta: float, sensitivity: float | None = None,
                                method: str = "exact", calibration: str = "analytic", rng: RngLike = None,
                                steps: int | None = None, on_fail: OnFail = "raise",
                                project_options: dict[str, Any] | None = None,
                                accountant: PrivacyAccountant | None = None) -> Release:
    r"""Release all pair-wise cosine similarities of the rows of ``V`` with :math:`(\varepsilon,\delta)`-DP.

    Implements the paper's Algorithm 3 (``method="exact"``; the cosine-similarity
    theorem: :math:`\mathbb E\|\hat X - UU^T\|_F^2 \le \sigma\,G(S) \le 2\sigma n^{3/2}`
    with the errata-corrected constant) and Algorithm 4 (``"alternating"``), with the
    Gaussian mechanism (``"gaussian"``) and a Dykstra projection (``"dykstra"``) as
    baselines. See the module docstring for adjacency, noise and methods.

    Parameters
    ----------
    V : ``n x m`` array, one vector per row (finite, no all-zero row); rows are
        normalized to unit length.
    epsilon, delta : the privacy guarantee.
    sensitivity : required. :math:`\Delta \ge \|UU^T - U'U'^T\|_F` over adjacent inputs: a
        property of your data and of the change you protect, so sosproj has no default.
        Replacing any one vector needs :math:`\Delta = 2\sqrt{2(n-1)}` in the worst case;
        the paper's adjacency uses :math:`\Delta = 1` (small changes); see ``docs/cosine.md``.
        Omitting it raises :class:`~sosproj.errors.InvalidParameterError` explaining this.
    method : ``"exact"`` | ``"dykstra"`` | ``"alternating"`` | ``"gaussian"``.
    calibration : ``"analytic"`` (default), ``"paper"`` or ``"classical"``.
    rng : SPEC 7 generator spec; ``None`` = fresh OS entropy (use it for real releases).
    steps : rounds of Algorithm 4 (``"alternating"`` only); default
        :func:`default_alternating_steps`.
    on_fail : ``"raise"`` | ``"warn"`` | ``"return"`` when an iterative projection hits
        its cap (``"exact"``, ``"dykstra"``).
    project_options : extra options for the projection (``tol``, ``max_iter``, ``z0``, ...).
    accountant : optional :class:`~sosproj.privacy.accountant.PrivacyAccountant`, charged before
        any noise is drawn; the guarantee is under replace-one adjacency (one vector replaced),
        so an accountant of another adjacency refuses the charge and nothing is released.

    Returns
    -------
    Release whose ``value`` is the symmetric ``n x n`` similarity estimate; ``info``
    holds the method, the noise description and the projection diagnostics
    (functions of the noisy matrix only, never of ``V``).

    >>> import numpy as np
    >>> V = np.eye(4)
    >>> a = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, method="gaussian", rng=7)
    >>> b = release_cosine_similarities(V, epsilon=1.0, delta=1e-6, sensitivity=1.0, method="exact", rng=7)
    >>> np.allclose(a.value, a.value.T), b.info["projection"]["converged"]
    (True, True)
    """
    if sensitivity is None:
        rows = getattr(V, "shape", (None,))[0]
        worst = (f"; for this input (n = {rows} vectors) that is 2*sqrt(2*(n-1)) = "
                 f"{2 * math.sqrt(2 * (rows - 1)):.4g}") if isinstance(rows, int) and rows >= 2 else ""
        raise InvalidParameterError(
            "sensitivity is required: pass sensitivity=Delta, a bound on ||U U^T - U' U'^T||_F over "
            "adjacent inputs (U = V with rows scaled to unit length). It is a property of your data and "
            "of the change you protect, so sosproj does not guess it: replacing any one vector needs "
            f"Delta = 2*sqrt(2*(n-1)) in the worst case{worst}; the paper's adjacency uses Delta = 1 "
            "(small changes). See docs/cosine.md, 'Adjacency'.")
    spec = PrivacySpec.create(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                              adjacency=Adjacency.REPLACE_ONE, calibration=calibration)
    check_choice(method, "method", METHODS)
    check_on_fail(on_fail)
    if steps is not None:
        if method != "alternating":
            raise InvalidParameterError("steps only applies to method='alternating'; drop it")
        steps = check_int(steps, "steps", minimum=1)
    if project_options is not None and not isinstance(project_options, dict):
        raise InvalidParameterError("project_options must be a dict of projection options or None")
    opts = dict(project_options or {})
    if method in ("alternating", "gaussian") and opts:
        raise InvalidParameterError(f"project_options do not apply to method={method!r}; drop them")
    U = normalize_rows(V)
    n = U.shape[0]
    check_memory(12.0 * 8 * n * n, "the cosine-similarity release")
    sigma = spec_sigma(spec)
    if accountant is not None:
        # After input validation (bad input must not consume budget), before anything is computed
        # from the data for the release.
        accountant.charge_gaussian(sigma=sigma, spec=spec, label="cosine_similarities")
    A = U @ U.T
    np.fill_diagonal(A, 1.0)
    # Noise first, one code path for every method (same draw for the same rng).
    gen = as_generator(rng)
    Y = A + gaussian_noise((n, n), sigma, gen)
    del A
    Ys = symmetrize(Y)
    info: dict[str, Any] = {
        "method": method, "n": n,
        "noise": "iid N(0, sigma^2) on all n^2 entries, then symmetric part (post-processing)",
        "adjacency": "||U U^T - U' U'^T||_F <= sensitivity, U = V with rows scaled to unit length",
    }
    if method in ("exact", "dykstra"):
        from sosproj.sets.bounded_diagonal_psd import BoundedDiagonalPSD

        opts.setdefault("on_fail", on_fail)
        value, pinfo = BoundedDiagonalPSD(1.0).project(
            Ys, method="newton" if method == "exact" else "dykstra", return_info=True, **opts)
        pdict = pinfo.as_dict()
        pdict.pop("dual", None)
        info["projection"] = pdict
    elif method == "alternating":
        from sosproj.sets import Box, Intersection, PSDFrobeniusBall

        t = default_alternating_steps(n) if steps is None else steps
        S12 = Intersection([PSDFrobeniusBall(float(n)), Box(-1.0, 1.0)], method="averaged")
        value, pinfo = S12.project(Ys, steps=t, return_info=True)
        value = symmetrize(value)
        info["projection"] = pinfo.as_dict()
        info["steps"] = t
        info["projection"]["exact"] = False
    else:
        value = Ys
    info.update(noise_info())
    return Release(value=value, sigma=sigma, spec=spec, mechanism=f"cosine_similarities[{method}]", info=info)


__all__ = ["release_cosine_similarities", "normalize_rows", "default_alternating_steps", "METHODS"]

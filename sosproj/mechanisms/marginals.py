r"""Private k-way marginals of binary data (the paper's Section "K-way marginal queries").

A k-way marginal query asks how many rows of a binary dataset :math:`D\in\{0,1\}^{m\times n}`
have all attributes of a set :math:`S` (``|S| <= k``) equal to one. All answers are linear
in the *subset moments* :math:`\mu_S` (:mod:`sosproj.data.moment_tensor`), and the paper
releases them through the normalized moment tensor

.. math:: T = \frac1m\sum_{r=1}^m \bigl(e^{(r)}/\sqrt{s}\bigr)^{\otimes k},

with :math:`s = n` (dense) or :math:`s = t` (``t``-sparse rows),

perturbed once, :math:`Y = T + W`, :math:`W_{\alpha}\sim N(0,\sigma^2)` i.i.d. over all
:math:`n^k` index tuples, then post-processed by a method:

=============  ==========================================================================
method         post-processing of :math:`Y` (all methods share the same draw of ``W``)
=============  ==========================================================================
gaussian       none: the answer for ``S`` is the entry of one canonical tuple (baseline)
symmetrize     average over all tuples with support ``S`` (orbit averaging with
               :math:`x_i^2=x_i`), clip to ``[0, 1]`` (baseline)
flatten        even ``k``: project the :math:`n^{k/2}\times n^{k/2}` flattening onto
               :math:`\{X\succeq 0, \mathrm{tr}\,X\le 1\}` (Dwork et al. 2015's set)
sos            project onto the paper's unit-ball pseudo-moment set, degree ``k``
               (even ``k``) or ``2k-2`` (odd ``k``)
sos-sparse     project onto the paper's :math:`\mathcal P_t` set (degree ``4k-4``; small ``n``)
topk           keep the largest :math:`m t^k` entries of ``Y`` (the paper's trivial sparse algorithm)
cube           project onto the Boolean-cube relaxation :math:`x_i^2 = x_i/\sqrt{s}`
               (degree ``2 ceil(k/2)``), with ``sparsity=t`` also :math:`\sum_i x_i\le\sqrt t`
tables         measure contingency tables instead (:mod:`sosproj.mechanisms.marginal_tables`)
auto           (default) ``tables`` without a row bound, ``cube`` with ``sparsity=t``
=============  ==========================================================================

Answers are read from the post-processed tensor by averaging the tuples of each support
(a projection onto a subspace containing :math:`T`, so it never increases the error).

Privacy: replace-one adjacency (one row replaced by any other admissible row; ``m`` is
public). The :math:`\ell_2` sensitivity of :math:`T` is exactly ``1/m`` for dense binary
rows and ``sqrt(2)/m`` for ``t``-sparse rows (``n >= 2t``), see
:func:`~sosproj.data.moment_tensor.normalized_tensor_sensitivity` and ``docs/marginals.md``.
The post-processing never touches the raw data.

Examples
--------
>>> import numpy as np
>>> from sosproj.mechanisms.marginals import release_marginals
>>> from sosproj.testing import noise_disabled
>>> D = np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1], [0, 1, 1]])
>>> with noise_disabled():
...     rel = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="symmetrize", rng=0)
>>> rel.query([0, 1]), rel.table([0, 1]).tolist()
(2.0, [[0.0, 1.0], [1.0, 2.0]])
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from sosproj.data.moment_tensor import (
    enforce_sparsity,
    normalized_tensor_sensitivity,
    pool_tensor,
    subset_index,
    subset_moments,
    subsets_upto,
    tensor_from_subset_moments,
)
from sosproj.errors import InputTypeError, InvalidParameterError
from sosproj.mechanisms.release import MarginalRelease
from sosproj.mechanisms.sizes import default_degree
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.privacy.noise import gaussian_noise
from sosproj.privacy.spec import CALIBRATIONS
from sosproj.rng import RngLike, as_generator
from sosproj.threads import with_thread_policy
from sosproj.validation import (
    check_choice,
    check_int,
    check_memory,
    check_privacy_params,
)

if TYPE_CHECKING:
    from sosproj.privacy.accountant import PrivacyAccountant

METHODS = ("auto", "gaussian", "symmetrize", "flatten", "sos", "sos-sparse", "topk", "cube", "tables")
#: The default method, chosen from the measurements in ``docs/bench_marginals.md``: ``"auto"``
#: resolves (from public parameters only) to ``"tables"`` for dense data (``sparsity=None``) and
#: to ``"cube"`` with the row-sparsity constraint when ``sparsity=t`` is given.
DEFAULT_METHOD = "auto"

__all__ = ["MarginalRelease", "release_marginals", "METHODS", "DEFAULT_METHOD",
           "resolve_method", "check_release_size"]


# ====================================================================== release object


# ====================================================================== mechanism


def check_release_size(shape: Any, k: Any, *, method: str = DEFAULT_METHOD, sparsity: Any = None,
                       degree: Any = None) -> None:
    """Refuse, from ``shape = (m, n)`` and public parameters alone, a release that cannot fit in memory.

    Resolves ``"auto"`` and the default degree, then :func:`sosproj.mechanisms.sizes.check_marginals_size`;
    arguments it cannot size yet are left to the release's validation.

    >>> check_release_size((1000, 8), 3)          # fits
    """
    from sosproj.mechanisms.sizes import check_marginals_size, sizes_of

    sizes = sizes_of(shape, k, sparsity, degree)
    if sizes is None or method not in METHODS:
        return
    n, k = sizes
    if method == "auto":
        method = resolve_method(sparsity)
    if degree is None:
        degree = default_degree(method, k, n)
    check_marginals_size(n, k, method=method, degree=degree)


def resolve_method(sparsity: int | None) -> str:
    """The method ``"auto"`` stands for: ``"tables"`` without a row bound, ``"cube"`` with one.

    Measured (``docs/bench_marginals.md``): on dense data measuring contingency tables and
    projecting onto the cube relaxation (``"tables"``) had the lowest error in every cell; with a
    public row bound ``t`` the ``t``-sparse tensor normalization (sensitivity ``sqrt(2)/m``
    on ``t^{k/2}``-scaled entries) makes the tensor measurement projected onto the cube with
    the row-sparsity constraint the best.

    >>> resolve_method(None), resolve_method(4)
    ('tables', 'cube')
    """
    return "tables" if sparsity is None else "cube"


def _canonical_tuple_index(n: int, k: int) -> np.ndarray:
    """Flat index into (n,)*k of the canonical tuple (sorted S, padded with its last element) per subset."""
    subs = subsets_upto(n, k)[1:]
    idx = np.empty(len(subs), dtype=np.int64)
    powers = n ** np.arange(k - 1, -1, -1, dtype=np.int64)
    for i, s in enumerate(subs):
        tup = list(s) + [s[-1]] * (k - len(s))
        idx[i] = int(np.dot(tup, powers))
    return idx


def _scalar_info(d: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, v in d.items():
        if isinstance(v, (bool, int, float, str, np.integer, np.floating, np.bool_)) or v is None:
            out[key] = v.item() if isinstance(v, np.generic) else v
    return out


_SET_CACHE: dict[tuple[Any, ...], Any] = {}
_SET_CACHE_SIZE = 4
#: Default relative tolerance of the conic solves of the SDP methods (answers are noisy at a far
#: larger scale; ``project_options={"tol": ...}`` overrides it).
DEFAULT_TOL = 1e-5


def _pseudo_moment_set(key: tuple[Any, ...], build: Any, degree: int, k: int, solver: str,
                       tol: float) -> tuple[Any, float]:
    """The compiled tensor set for ``key`` (public parameters only), cached across releases."""
    full_key = (*key, degree, k, solver, tol)
    hit = _SET_CACHE.get(full_key)
    if hit is not None:
        return hit, 0.0
    from sosproj.poly import MomentRelaxation
    from sosproj.sets.pseudo_moment import PseudoMomentSet

    t0 = time.perf_counter()
    S = PseudoMomentSet(MomentRelaxation(build(), degree), k, solver=solver, tol=tol)
    if len(_SET_CACHE) >= _SET_CACHE_SIZE:
        _SET_CACHE.pop(next(iter(_SET_CACHE)))
    _SET_CACHE[full_key] = S
    return S, time.perf_counter() - t0


def _project_pseudo_moment(key: tuple[Any, ...], build: Any, degree: int, k: int, Y: np.ndarray,
                           solver: str, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    opts = {"warm_start": False}
    opts.update(options)
    tol = float(opts.pop("tol", DEFAULT_TOL))
    S, build_time = _pseudo_moment_set(key, build, degree, k, solver, tol)
    X, pinfo = S.project(Y, return_info=True, **opts)
    info = _scalar_info(pinfo.as_dict())
    info.update(build_time=build_time, n_moments=int(S.relaxation.n_moments))
    return X, info


@with_thread_policy
def release_marginals(D: Any, k: int, *, epsilon: float, delta: float, method: str | None = None,
                      domain: Any = None, workload: Any = None, allocation: str = "auto",
                      reconstruction: str = "auto", adjacency: Any = "replace-one",
                      sparsity: int | None = None, on_violation: str = "truncate",
                      calibration: str = "analytic", degree: int | None = None, solver: str = "auto",
                      rng: RngLike = None, accountant: PrivacyAccountant | None = None,
                      project_options: dict[str, Any] | None = None, public_m: int | None = None,
                      selection: str = "none") -> Any:
    r"""Release every marginal of order ``<= k`` of binary data ``D`` with :math:`(\varepsilon,\delta)`-DP.

    Parameters
    ----------
    D : binary matrix (numpy or scipy.sparse; rows = records, columns = attributes).
    k : largest marginal order, ``1 <= k <= n``.
    epsilon, delta : privacy guarantee under replace-one adjacency (``m`` public).
    method : ``None`` (default): the residual pipeline (:func:`sosproj.mechanisms.marginals_pipeline.release`;
        categorical data too, with ``domain``), or, when ``sparsity`` is given, the ``t``-sparse tensor route;
        else one of :data:`METHODS` (module docstring), where ``"auto"`` picks ``"tables"`` for dense data and
        ``"cube"`` when ``sparsity`` is given (:func:`resolve_method`).
    allocation, reconstruction : residual pipeline only (``marginals_pipeline.ALLOCATIONS`` /
        ``RECONSTRUCTIONS``). ``reconstruction="auto"`` projects binary data of at most 16 attributes onto the
        exact marginal polytope (``"joint"``: a distribution over all ``2^n`` points, certified by its
        Frank-Wolfe gap), larger binary data onto the Boolean-cube relaxation then local non-negativity, and
        categorical data onto locally non-negative tables.
    sparsity : public row bound ``t``: switches to the ``t``-sparse normalization
        (required by ``"sos-sparse"`` and ``"topk"``; ``"cube"`` adds the row-sparsity constraint).
    on_violation : rows with more than ``t`` ones are truncated by the public rule
        (first ``t`` ones kept) or refused with ``"raise"``.
    calibration : Gaussian calibration, see :func:`~sosproj.privacy.calibration.gaussian_sigma`.
    degree : relaxation degree for the SDP methods (default
        :func:`sosproj.mechanisms.sizes.default_degree`).
    solver : conic solver for the SDP methods: ``"auto"`` (default: sosproj's structured ADMM,
        :mod:`sosproj.sdp.backends.admm`, with SCS where the relaxation lacks its structure or
        ADMM stops short; the dedicated Fourier ADMM for ``"tables"``), ``"admm"``, ``"scs"``,
        ``"clarabel"``, ``"cvxpy"``...
    rng : SPEC 7; ``None`` (default) draws fresh OS entropy: use it for real releases.
    accountant : optional :class:`~sosproj.privacy.accountant.PrivacyAccountant`, charged after
        input validation and before the measurement (for ``"tables"``: before the release is
        returned; a refused charge discards it).
    project_options : extra options for the projection (tolerances, ``on_fail``; ``compiled``: ``False`` keeps
        the LNN dual on numpy, ``True`` runs its compiled step from the first iteration, same tables up to round-off;
        residual pipeline: ``extrapolation``, ``"uniform"`` (default; ``"tree"`` with ``selection="pairs"``) or
        ``"tree"`` / ``"tree-pairs"``, the start of the skipped sets' extrapolation, see
        :func:`sosproj.mechanisms.extrapolation.extrapolate_unmeasured`).
    public_m : residual pipeline under ``adjacency="add-remove"`` only: a public number of records
        (a declared size, never computed from the records) for the ``"auto"`` allocation, which is
        refused without it there (``m`` is private under add/remove); see
        :func:`sosproj.mechanisms.marginals_pipeline.release`.
    selection : residual pipeline only: ``"none"`` (default; the measurement depends on public quantities only)
        or ``"one-way"`` (opt-in: a separately budgeted private step may measure 1-way tables of concentrated
        attributes that the public rule skips; same (epsilon, delta); see
        :func:`sosproj.mechanisms.marginals_pipeline.select_one_way`) or ``"pairs"`` (opt-in: a separately
        budgeted private step chooses which attribute pairs to measure, the others are extrapolated from the
        Chow-Liu tree of the measured pairs; same (epsilon, delta); see
        :func:`sosproj.mechanisms.marginals_pipeline.select_pairs`).

    Returns
    -------
    MarginalRelease with every subset of size ``<= k``.

    >>> import numpy as np
    >>> D = np.random.default_rng(0).integers(0, 2, size=(500, 4))
    >>> rel = release_marginals(D, 2, epsilon=1.0, delta=1e-6, method="symmetrize", rng=1)
    >>> len(rel.subsets), rel.method, round(rel.sensitivity * 500, 6)
    (11, 'symmetrize', 1.0)
    """
    if method is None and sparsity is not None:
        method = "auto"                     # a public row bound: the t-sparse tensor route ('cube')
    if method is None:
        from sosproj.mechanisms.marginals_pipeline import release as _pipeline

        return _pipeline(D, k, epsilon=epsilon, delta=delta, domain=domain, workload=workload,
                         allocation=allocation, reconstruction=reconstruction, adjacency=adjacency,
                         calibration=calibration, rng=rng, accountant=accountant, options=project_options,
                         public_m=public_m, selection=selection)
    if selection != "none":
        raise InvalidParameterError("selection applies to the residual pipeline (method=None); got "
                                    f"selection={selection!r} with method={method!r}")
    if public_m is not None:
        raise InvalidParameterError("public_m applies to the residual pipeline (method=None) under add/remove "
                                    "adjacency; the other methods use replace-one adjacency, where m is public")
    method = check_choice(method, "method", METHODS)
    if method == "auto":
        method = resolve_method(sparsity)
    check_release_size(getattr(D, "shape", None), k, method=method, sparsity=sparsity, degree=degree)  # no data pass
    if method == "tables":
        if sparsity is not None:
            raise InvalidParameterError("sparsity is not supported by method='tables'; pass sparsity=None")
        from sosproj.mechanisms.marginal_tables import release_tables

        extra = dict(project_options or {})
        unknown = set(extra) - {"tol", "max_iter", "on_fail"}
        if unknown:
            raise InvalidParameterError("project_options for method='tables' may only contain 'tol', "
                                        "'max_iter' and 'on_fail'")
        # release_tables charges the accountant itself, before any count is computed.
        return release_tables(D, k, epsilon=epsilon, delta=delta, workload=None, calibration=calibration,
                              degree=degree, solver=solver, rng=rng, accountant=accountant, **extra)
    epsilon, delta, _ = check_privacy_params(epsilon, delta, 1.0)
    check_choice(calibration, "calibration", CALIBRATIONS)
    check_choice(on_violation, "on_violation", ("truncate", "raise"))
    if not isinstance(solver, str):
        raise InputTypeError("solver must be a string such as 'scs' or 'clarabel'")
    if method in ("sos-sparse", "topk") and sparsity is None:
        raise InvalidParameterError(f"method={method!r} needs sparsity=t (the public bound on ones per row)")
    D = enforce_sparsity(D, sparsity, on_violation)
    m, n = D.shape
    k = check_int(k, "k", minimum=1)
    if k > n:
        raise InvalidParameterError(f"k must be <= n (the number of attributes, {n}); got k={k}")
    if sparsity is not None and k > sparsity:
        raise InvalidParameterError("k must be <= sparsity (no row has more than sparsity ones)")
    if method == "flatten" and k % 2:
        raise InvalidParameterError("method='flatten' needs an even k (the tensor is flattened to "
                                    "n^(k/2) x n^(k/2)); use 'sos' or 'cube' for odd k")
    deg = default_degree(method, k, n) if degree is None else check_int(degree, "degree", minimum=1)
    if deg is not None and deg < k:
        raise InvalidParameterError(f"degree must be >= k={k} so the relaxation contains order-k moments")
    check_memory(8.0 * n**k * 4, f"the order-{k} noisy tensor over n={n} attributes")

    s = n if sparsity is None else int(sparsity)
    scale = float(s) ** (-k / 2)
    sens = normalized_tensor_sensitivity(n, k, m, sparsity)
    sigma = gaussian_sigma(epsilon, delta, sens, calibration)
    if accountant is not None:
        accountant.charge_gaussian(sigma=sigma, sensitivity=sens, epsilon=epsilon, delta=delta,
                                   label=f"release_marginals[{method}]")
    gen = as_generator(rng)
    # ---- the measurement (touches the data) ------------------------------------------
    _, mu = subset_moments(D, k)
    T = tensor_from_subset_moments(mu, n, k, scale=scale)
    Y = T + gaussian_noise(T.shape, sigma, gen)
    del T, mu
    # ---- post-processing (noisy Y only) --------------------------------------------
    info: dict[str, Any] = {
        "measurement": "normalized moment tensor, all n^k entries",
        "normalization": "dense (e/sqrt(n))" if sparsity is None else "t-sparse (e/sqrt(t))",
        "scale": scale, "noise": "gaussian", "adjacency": "replace-one",
        "sparsity": sparsity, "on_violation": on_violation if sparsity is not None else None,
        "degree": deg,
    }
    opts = dict(project_options or {})
    if method == "gaussian":
        mu_hat = Y.ravel()[_canonical_tuple_index(n, k)] / scale
    elif method == "symmetrize":
        mu_hat = np.clip(pool_tensor(Y, k)[1:] / scale, 0.0, 1.0)
    elif method == "flatten":
        from sosproj.sets import Spectraplex

        N = n ** (k // 2)
        X, pinfo = Spectraplex(1.0).project(Y.reshape(N, N), return_info=True)
        info["projection"] = _scalar_info(pinfo.as_dict())
        mu_hat = pool_tensor(X.reshape(Y.shape), k)[1:] / scale
    elif method == "topk":
        keep = min(m * int(sparsity) ** k, Y.size)
        flat = Y.ravel()
        X = np.zeros_like(flat)
        if keep > 0:
            top = np.argpartition(flat, flat.size - keep)[flat.size - keep:]
            X[top] = flat[top]
        info["kept_entries"] = int(keep)
        mu_hat = pool_tensor(X.reshape(Y.shape), k)[1:] / scale
    else:
        from sosproj import poly

        if method == "sos":
            key, build = ("unit_ball", n), (lambda: poly.unit_ball(n))
        elif method == "sos-sparse":
            key, build = ("sparse_ball", n, sparsity), (lambda: poly.sparse_ball(n, int(sparsity)))
        else:
            key, build = ("cube", n, s, sparsity), (lambda: _cube_system(n, s, sparsity))
        X, pinfo = _project_pseudo_moment(key, build, deg, k, Y, solver, opts)
        info["projection"] = pinfo
        mu_hat = pool_tensor(X, k)[1:] / scale
    moments = np.concatenate([[1.0], mu_hat])
    return MarginalRelease(subsets=subsets_upto(n, k), moments=moments, m=m, n=n, k=k, method=method,
                           epsilon=epsilon, delta=delta, sigma=sigma, sensitivity=sens,
                           calibration=calibration, info=info)


def _cube_system(n: int, s: int, sparsity: int | None) -> Any:
    """Boolean cube on the scaled data ``x = e / sqrt(s)``: ``x_i^2 = x_i / sqrt(s)``.

    With ``sparsity=t`` also the row-sparsity constraint ``sum_i x_i <= t / sqrt(s)``
    (i.e. at most ``t`` ones), added as an inequality with the cube's exact reduction.
    """
    from fractions import Fraction

    from sosproj.poly import Polynomial, PolySystem, boolean_cube
    from sosproj.poly.groebner import BooleanReduction

    c = 1.0 / math.sqrt(s)
    if sparsity is None:
        return boolean_cube(n, scale=c)
    terms: dict[tuple[int, ...], Any] = {(0,) * n: Fraction(int(sparsity)) * Fraction(c)}
    for i in range(n):
        e = [0] * n
        e[i] = 1
        terms[tuple(e)] = Fraction(-1)
    g = Polynomial.from_terms(terms, n)
    red = BooleanReduction(n, c)
    return PolySystem(n, equalities=red.equalities(), inequalities=[g],
                      name=f"boolean_cube(n={n}, scale={c:g}) + row sparsity",
                      equality_names=[f"boolean[{i}]" for i in range(n)],
                      inequality_names=["row_sparsity"], _reduction=red)


# keep an index helper for subset lookups (used by benchmarks and tests)
def subset_positions(subs: list[tuple[int, ...]], n: int, k: int) -> np.ndarray:
    """Positions of sorted attribute tuples in :func:`~sosproj.data.moment_tensor.subsets_upto` ``(n, k)``.

    >>> subset_positions([(0, 1), (2,)], 3, 2).tolist()
    [4, 3]
    """
    padded = np.full((len(subs), max(k, 1)), -1, dtype=np.int64)
    for i, s in enumerate(subs):
        padded[i, : len(s)] = s
    return subset_index(padded, n, k)


__all__.append("subset_positions")

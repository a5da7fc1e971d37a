r"""Private marginals by measuring contingency tables and projecting onto the
Boolean-cube sum-of-squares relaxation in the measurement metric.

Mechanism (:func:`release_tables`)
----------------------------------
1. *Measure*: the count tables ``c_T`` of every attribute set ``T`` of the
   workload (all ``2^|T|`` cells), plus i.i.d. Gaussian noise of standard
   deviation ``sigma = gaussian_sigma(epsilon, delta, sqrt(2 * n_tables))``.
   Under replace-one adjacency one row moves each table by one count out of one
   cell and into another, so the concatenated tables have l2 sensitivity
   ``sqrt(2 * n_tables)`` (:func:`sosproj.data.contingency.table_sensitivity`).
2. *Project* (post-processing, no privacy cost): the weighted least squares
   ``min sum_T w_T ||p_T(y) - c_T / m||^2`` over pseudo-moments ``y`` of the
   degree-``d`` Boolean-cube relaxation (``x_i^2 = x_i``; moment matrix indexed
   by subsets of size ``<= d/2``, PSD; ``y_{()} = 1``), ``d = 2 ceil(k/2)`` by
   default, plus 2 where that stays cheap
   (:func:`sosproj.mechanisms.sizes.default_degree`).  ``p_T(y)``
   are the table cells as Moebius combinations of subset moments (:func:`sosproj.data.contingency.measurement_matrix`).
3. *Answer* every query and table of order ``<= k`` from the projected
   pseudo-moments: answers are consistent (each table sums to ``m``; lower
   order tables are sums of higher-order ones).

Solvers
-------
``solver="admm"`` (default): in the +-1 Fourier basis ``f_U = E[prod_{i in U}
(1 - 2 x_i)]`` the measurement objective is *diagonal*
(:func:`sosproj.data.contingency.fourier_form`) and the cube moment matrix is
``M(f)[A, B] = f_{A xor B}``; ADMM on ``X = M(f)`` then needs one PSD
projection (eigendecomposition) per iteration and a closed-form diagonal
update for ``f`` (:class:`sosproj.sdp.cube_tables_admm.CubeTablesProjector`).  ``"scs"``, ``"clarabel"``
and ``"cvxpy"`` compile the same least squares with the generic SDP layer
(:class:`sosproj.sdp.LeastSquaresProjector`) where it is installed.
:func:`tables_least_squares_reference` is an independent cvxpy formulation in
the 0/1 subset basis, used by the tests as the reference.

The projector's example is in :mod:`sosproj.sdp.cube_tables_admm`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from sosproj.data.contingency import (
    SubsetIndex,
    TableLayout,
    contingency_tables,
    fourier_form,
    measurement_matrix,
    subset_from_fourier,
    table_sensitivity,
)
from sosproj.errors import InvalidParameterError, ProjectionError, SolverNotAvailableError
from sosproj.mechanisms.sizes import check_marginals_size, default_degree, sizes_of
from sosproj.policy import check_on_fail
from sosproj.rng import RngLike, as_generator
from sosproj.sdp.cube_tables_admm import CubeTablesProjector
from sosproj.threads import with_thread_policy
from sosproj.validation import (
    check_binary_matrix,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
)

if TYPE_CHECKING:
    from sosproj.privacy.accountant import PrivacyAccountant

SOLVERS = ("auto", "admm", "scs", "clarabel", "cvxpy")
NOISES = ("gaussian", "discrete")


def tables_least_squares_reference(cells: np.ndarray, layout: TableLayout, degree: int, *,
                                   weights: np.ndarray | None = None, solver: str = "CLARABEL",
                                   eps: float = 1e-8, nonnegative: bool = False) -> np.ndarray:
    r"""Reference solution (cvxpy, 0/1 subset basis) of the cube-relaxation least squares.

    ``min sum_T w_T ||B_T y - c_T||^2`` over ``y`` indexed by subsets of size
    ``<= degree`` with ``y_{()} = 1`` and moment matrix ``M(y)[A, B] = y_{A u B}``
    (``|A|, |B| <= degree/2``) PSD.  Independent of the Fourier route; small ``n``
    only.  Returns the subset moments of size ``<= layout.max_size``.

    (Skipped in the doctest run because importing cvxpy takes seconds; the tests
    in ``tests/test_tables_release.py`` run it.)

    >>> lay = TableLayout.all_k_way(2, 1)
    >>> y = tables_least_squares_reference(np.array([0.5, 0.5, 0.2, 0.8]), lay, 2)  # doctest: +SKIP
    >>> np.round(y, 6).tolist()  # doctest: +SKIP
    [1.0, 0.5, 0.8]
    """
    import cvxpy as cp

    n = layout.n
    degree = check_int(degree, "degree", minimum=2)
    top = min(degree, n)
    t = min(degree // 2, n)
    index = SubsetIndex(n, top)
    basis = int(index.starts[t + 1])
    tuples = index.tuples()
    pos = {s: i for i, s in enumerate(tuples)}
    rows, cols, vals = [], [], []
    for i in range(basis):
        for j in range(basis):
            u = tuple(sorted(set(tuples[i]) | set(tuples[j])))
            rows.append(i * basis + j)
            cols.append(pos[u])
            vals.append(1.0)
    import scipy.sparse as sps

    A = sps.csr_matrix((vals, (rows, cols)), shape=(basis * basis, len(index)))
    B = measurement_matrix(layout, index)
    w = np.ones(layout.n_tables) if weights is None else np.asarray(weights, dtype=float)
    sw = np.sqrt(np.repeat(w, np.diff(layout.offsets)))
    y = cp.Variable(len(index))
    M = cp.reshape(A @ y, (basis, basis), order="C")
    cons = [y[0] == 1, 0.5 * (M + M.T) >> 0]
    if nonnegative:
        cons.append(B @ y >= 0)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(sw, B @ y - cells))), cons)
    kw: dict[str, Any] = {}
    if solver.upper() == "CLARABEL":
        kw = {"tol_gap_abs": eps, "tol_gap_rel": eps, "tol_feas": eps}
    elif solver.upper() == "SCS":
        kw = {"eps_abs": eps, "eps_rel": eps, "max_iters": 200000}
    prob.solve(solver=solver.upper(), **kw)
    if prob.status not in ("optimal",):
        raise ProjectionError("cvxpy reference did not solve to optimality", {"status": prob.status})
    k = layout.max_size
    return np.asarray(y.value[: int(index.starts[k + 1])])


def _noise(shape: int, sigma: float, noise: str, epsilon: float, delta: float, sensitivity: float,
           gen: np.random.Generator) -> tuple[np.ndarray, float, str]:
    """Draw measurement noise through sosproj.privacy (returns noise, sigma, distribution)."""
    if noise == "gaussian":
        from sosproj.privacy.noise import gaussian_noise

        return gaussian_noise((shape,), sigma, gen), sigma, "gaussian"
    try:
        from sosproj.privacy.discrete_gaussian import discrete_gaussian_sigma, sample_discrete_gaussian
    except ImportError as exc:  # pragma: no cover - depends on the privacy module being present
        raise SolverNotAvailableError(
            "noise='discrete' needs sosproj.privacy.discrete_gaussian; use noise='gaussian'") from exc
    s = float(discrete_gaussian_sigma(epsilon, delta, sensitivity))
    return np.asarray(sample_discrete_gaussian((shape,), s * s, gen), dtype=float), s, "discrete_gaussian"


def _generic_projection(cells: np.ndarray, layout: TableLayout, degree: int, weights: np.ndarray,
                        solver: str, tol: float) -> tuple[np.ndarray, dict[str, Any]]:
    """Project with the generic SDP layer (sosproj.sdp.LeastSquaresProjector)."""
    try:
        from sosproj.poly import MomentRelaxation, boolean_cube
        from sosproj.sdp.least_squares import LeastSquaresProjector
    except ImportError as exc:
        raise SolverNotAvailableError(
            f"solver={solver!r} needs sosproj.sdp.LeastSquaresProjector and sosproj.poly; "
            "use solver='admm'") from exc
    n = layout.n
    R = MomentRelaxation(boolean_cube(n), degree)
    mon = np.asarray(R.monomials)[:, :n]
    sizes = mon.sum(1)
    width = max(int(sizes.max()), layout.max_size)
    index = SubsetIndex(n, min(width, n))
    rows = np.full((mon.shape[0], index.max_size), -1, dtype=np.int64)
    for r in range(mon.shape[0]):
        nz = np.flatnonzero(mon[r])
        rows[r, :nz.size] = nz
    perm = index.lookup(rows)                                  # relaxation column -> index position
    B_idx = measurement_matrix(layout, index)
    B = B_idx[:, perm]
    cell_w = np.repeat(weights, np.diff(layout.offsets))
    proj = LeastSquaresProjector(R, B, cell_w, solver=solver, tol=tol)
    y_rel, res = proj.solve(cells)
    y = np.zeros(len(index))
    y[perm] = np.asarray(y_rel)
    k = layout.max_size
    info = {"solver": solver, "status": getattr(res, "status", None),
            "iterations": getattr(res, "iterations", None),
            "primal_residual": getattr(res, "primal_residual", None),
            "converged": True, "time": getattr(res, "time", None)}
    return y[: int(index.starts[k + 1])], info


@with_thread_policy
def release_tables(D: Any, k: int, *, epsilon: float, delta: float,
                   workload: Sequence[Sequence[int]] | None = None, calibration: str = "analytic",
                   degree: int | None = None, solver: str = "auto", rng: RngLike = None,
                   noise: str = "gaussian", tol: float = 1e-4, max_iter: int = 5000,
                   on_fail: str = "warn", accountant: PrivacyAccountant | None = None) -> Any:
    r"""Release all marginals of order ``<= k`` by measuring contingency tables.

    Measures the count table of every attribute set of the workload (default:
    all ``C(n, k)`` sets of size ``k``) with the Gaussian mechanism calibrated to
    the replace-one l2 sensitivity ``sqrt(2 * n_tables)`` (``noise="discrete"``:
    the discrete Gaussian, integer counts), then projects the noisy tables, as
    fractions of the public ``m``, onto the degree-``d`` Boolean-cube SoS
    relaxation in the measurement metric (least squares on the cells;
    ``d`` from :func:`sosproj.mechanisms.sizes.default_degree` with ``method="tables"``
    unless given).  The projection is post-processing: the
    release is ``(epsilon, delta)``-DP under replace-one adjacency.

    Parameters
    ----------
    D : (m, n) binary array or scipy.sparse matrix (rows = records).
    k : largest marginal order answered; every workload set must have size ``<= k``.
    epsilon, delta : privacy parameters.
    workload : attribute sets to measure (default: all ``k``-subsets).  Queries on
        subsets covered by no measured table are not informed by the data.
    calibration : ``"analytic"`` (default), ``"paper"`` or ``"classical"``.
    degree : even relaxation degree ``>= k`` (default :func:`sosproj.mechanisms.sizes.default_degree`: ``2 ceil(k/2)``,
        plus 2 when the moment matrix stays small, e.g. degree 6 for ``k = 3``, ``n <= 12``).
    solver : ``"auto"``/``"admm"`` (the structured Fourier ADMM, default), or
        ``"scs"``/``"clarabel"``/``"cvxpy"`` through the generic SDP layer (small ``n``).
    rng : SPEC 7 generator spec (None: fresh OS entropy).
    noise : ``"gaussian"`` or ``"discrete"``.
    accountant : optional :class:`~sosproj.privacy.accountant.PrivacyAccountant`, charged
        before any count is computed; a charge over budget raises and releases nothing.
    tol, max_iter, on_fail : ADMM stopping rule and what to do when it is not met.

    Returns
    -------
    MarginalRelease with subset moments (fractions) of every subset of size ``<= k``;
    ``info`` holds the noisy measured cells (already private), solver diagnostics
    and the workload.

    Examples
    --------
    >>> from sosproj.testing import noise_disabled
    >>> D = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> with noise_disabled():
    ...     rel = release_tables(D, 2, epsilon=1.0, delta=1e-6, rng=0)
    >>> round(rel.query([0, 1]), 2), round(float(rel.table([0, 1]).sum()), 6)
    (2.0, 4.0)
    """

    sizes = sizes_of(getattr(D, "shape", None), k, None, degree)
    if workload is None and sizes is not None:  # sizes alone, before any pass over the data
        check_marginals_size(sizes[0], sizes[1], method="tables",
                             degree=default_degree("tables", sizes[1], sizes[0]) if degree is None else degree)
    X = check_binary_matrix(D, "D")
    m, n = X.shape
    k = check_int(k, "k", minimum=1, maximum=n)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    check_choice(solver, "solver", SOLVERS)
    check_choice(noise, "noise", NOISES)
    check_on_fail(on_fail)
    layout = TableLayout.all_k_way(n, k) if workload is None else TableLayout.from_workload(workload, n)
    if layout.max_size > k:
        raise InvalidParameterError("every workload attribute set must have size <= k; raise k")
    if degree is None:
        degree = default_degree("tables", k, n)
    degree = check_int(degree, "degree", minimum=2)
    if degree % 2 or degree < k:
        raise InvalidParameterError(f"degree must be even and >= k={k}; e.g. degree={default_degree('tables', k)}")
    from sosproj.privacy.calibration import gaussian_sigma

    sens = table_sensitivity(layout)
    sigma = gaussian_sigma(epsilon, delta, sens, calibration=calibration)
    if accountant is not None:
        # Charge before anything is computed from the data: a refused release draws no noise.
        charged_sigma = sigma
        if noise == "discrete":
            from sosproj.privacy.discrete_gaussian import discrete_gaussian_sigma

            charged_sigma = float(discrete_gaussian_sigma(epsilon, delta, sens))
        accountant.charge_gaussian(sigma=charged_sigma, sensitivity=sens, epsilon=epsilon, delta=delta,
                                   label="release_tables", discrete=(noise == "discrete"))
    gen = as_generator(rng)
    counts = contingency_tables(X, layout, flat=True).astype(float)
    z, sigma, dist = _noise(layout.n_cells, sigma, noise, epsilon, delta, sens, gen)
    noisy = counts + z
    del counts
    cells = noisy / m
    weights = np.ones(layout.n_tables)
    t0 = time.perf_counter()
    if solver in ("auto", "admm"):
        index_k = SubsetIndex(n, k)
        ff = fourier_form(cells, layout, index_k, weights)
        proj = CubeTablesProjector(n, degree, ff.a, tol=tol, max_iter=max_iter)
        f, pinfo = proj.solve(ff.g, on_fail=on_fail)
        y = subset_from_fourier(proj.index, k) @ f
    else:
        y, pinfo = _generic_projection(cells, layout, degree, weights, solver, tol)
    index_k = SubsetIndex(n, k)
    covered = np.zeros(len(index_k), dtype=bool)
    covered[0] = True
    for s, _, attrs in layout.groups():
        from sosproj.data.contingency import _gather_subsets, _sub_masks

        covered[index_k.lookup(_gather_subsets(attrs, _sub_masks(s), index_k.max_size)
                               .reshape(-1, index_k.max_size))] = True
    info = dict(pinfo)
    info.update({"mechanism": "tables", "degree": degree, "n_tables": layout.n_tables,
                 "n_cells": layout.n_cells, "workload": layout.sets, "noise": dist,
                 "measured_cells": noisy, "uncovered_subsets": int(np.count_nonzero(~covered)),
                 "adjacency": "replace-one", "projection_time": time.perf_counter() - t0})
    from sosproj.mechanisms.release import MarginalRelease

    return MarginalRelease.from_subset_moments(
        index_k.tuples(), np.asarray(y, dtype=float), m=m, n=n, k=k, method="tables",
        epsilon=epsilon, delta=delta, sigma=sigma, sensitivity=sens, calibration=calibration,
        info=info)


__all__ = ["release_tables", "tables_least_squares_reference",
           "SOLVERS", "NOISES"]

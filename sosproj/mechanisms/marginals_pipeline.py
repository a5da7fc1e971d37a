r"""Private marginals of categorical data as one pipeline: data -> measurement -> reconstruction -> release.

1. **Data** (:class:`~sosproj.data.domain.Dataset`): integer codes over a public domain,
   validated once at the door.
2. **Measurement** (:func:`measure`): the residuals ``c_A`` (ResidualPlanner's basis,
   :mod:`sosproj.data.residuals`) of every attribute set ``A`` of the workload's closure, each
   with isotropic Gaussian noise of scale :math:`\sigma_A = \sigma_0 s_A` on its residual
   subspace. The *shape* ``s_A`` comes from an allocation rule (:data:`ALLOCATIONS`), a function
   of public quantities only (domain sizes, workload, ``m``, epsilon, delta); :math:`\sigma_0`
   calibrates the Gaussian mechanism to the exact sensitivity (:func:`residual_sensitivity`). The
   ``"auto"`` allocation of categorical data skips the sets whose public set SNR is below their
   order's threshold in :data:`AUTO_SKIP_SNR` (:func:`measured_sets`; ``sigma_A = inf``: no budget, no
   data); their interactions are extrapolated after the reconstruction (:func:`_reconstruct_skipped`). On the
   measured family the shape is then moved toward the L1-optimal one (:func:`l1_correction`, :data:`WIDE_L1_GAMMA`;
   session 37): a wide table whose higher residuals are skipped weighs by its expected L1 noise, not its cell count,
   so the low-order sets that alone carry it get more of the budget. A 1-way set
   measured below the set SNR :data:`ONE_WAY_SHRINK_BAND` is shrunk toward the uniform table by a positive-part
   James-Stein factor before the reconstruction (:func:`shrink_one_way`; post-processing, session 31), and every
   measured set of order 2 and 3 toward the extrapolation of its subsets by the same factor with the constant
   :data:`RESIDUAL_SHRINK` (:func:`shrink_residuals`, :data:`RESIDUAL_SHRINK_BANDS`; session 32).
   Opt-in (``selection="one-way"``): where that rule leaves a 1-way set unmeasured, a **private 1-way
   selection** (:func:`select_one_way`,
   :data:`SELECT_ONE_WAY`) spends a share of the budget on a Gaussian mechanism that asks whether the
   attribute is concentrated enough for its measured table to beat the uniform one, and measures the
   attributes that pass (the two Gaussian mechanisms compose to the release's budget in Gaussian DP).
3. **Reconstruction** (post-processing, :data:`RECONSTRUCTIONS`): ``"blue"`` (ResidualPlanner's
   best linear unbiased reconstruction), ``"lnn"`` (the projection in the measurement metric onto
   consistent, locally non-negative marginals), ``"lnn-psd"`` (``"lnn"``, then ``"lnn"`` plus the
   one-hot degree-2 moment matrix PSD warm-started from it, returned only when converged), ``"joint"`` (binary
   data of at most :data:`JOINT_MAX_N` attributes: the projection onto the EXACT marginal polytope, a distribution
   over all ``2^n`` points, :func:`_joint`) and
   ``"auto"`` (binary: ``"joint"`` up to :data:`JOINT_AUTO_MAX_N` attributes, else the Boolean-cube projection then
   ``"lnn"``, or, where the cube's moment matrix
   is too large, the LNN projection in the table metric, :func:`table_metric`; categorical: ``"lnn-psd"`` when every
   attribute pair is in the workload's closure and the public SNR is at least :data:`PSD_MIN_SNR`,
   else ``"lnn"``).
4. **Release** (:class:`~sosproj.mechanisms.release.MarginalTablesRelease`): consistent tables,
   ``rel.table(attrs)``, ``info["noise_scales"]``.

Allocation rules (``s_A`` up to a common factor; :math:`p_A=\prod_{i\in A}(n_i-1)/n_i`,
:math:`v_A=\prod_{i\in A}(n_i-1)\sum_{W\supseteq A}\prod_{i\in W\setminus A}1/n_i`,
:math:`d_A=\sum_{W\supseteq A}\prod_{i\in W\setminus A}1/n_i`, sums over the workload):

* ``"rp"``: :math:`s_A^2 \propto \sqrt{p_A/v_A}`, ResidualPlanner's closed-form optimum of the
  sum of cell variances of the workload's tables under the BLUE (minimize :math:`\sum_A v_A s_A^2`
  subject to :math:`\sum_A p_A/s_A^2` fixed).
* ``"equal-tables"``: :math:`s_A^2 = 1/d_A`. This is *exactly* the classical measurement of every
  workload table with the same i.i.d. noise on every cell: the table noise splits orthogonally over
  the residuals of the table's subsets, and the precision-weighted combination of the copies of
  ``c_A`` is a sufficient statistic with precision :math:`d_A/\sigma^2`; the privacy loss of the
  tables equals that of the combined residuals, so the calibration is the same.
* ``"auto"`` (default): the geometric interpolation
  :math:`\log s_A^2 = (1-t)\log s^{2,\mathrm{rp}}_A + t\log s^{2,\mathrm{eq}}_A` with
  ``t = auto_mix(snr)`` and the public signal-to-noise ratio :func:`public_snr`; chosen by the
  synthetic study of ``docs/bench_allocation.md``.

Examples
--------
>>> import numpy as np
>>> from sosproj.data.domain import Dataset, Domain
>>> ds = Dataset(np.random.default_rng(0).integers(0, 3, size=(400, 3)), Domain.from_sizes([3, 3, 3]))
>>> rel = release(ds, 2, epsilon=1.0, delta=1e-6, rng=1)
>>> rel.table((2, 0)).shape, round(float(rel.table((2, 0)).sum()), 6), bool(rel.table((0, 1)).min() >= 0)
((3, 3), 400.0, True)
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sosproj.data.domain import Dataset, Domain
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.errors import InvalidParameterError
from sosproj.mechanisms.extrapolation import EXTRAPOLATION_PRIORS, extrapolate_unmeasured, ipf_table, maximal_sets
from sosproj.privacy.calibration import gaussian_sigma
from sosproj.privacy.noise import gaussian_noise
from sosproj.privacy.spec import CALIBRATIONS, Adjacency, PrivacySpec
from sosproj.rng import RngLike, as_generator
from sosproj.testing import noise_is_disabled
from sosproj.validation import check_choice, check_delta, check_epsilon, check_int

if TYPE_CHECKING:
    from sosproj.privacy.accountant import PrivacyAccountant

__all__ = ["ALLOCATIONS", "RECONSTRUCTIONS", "check_all_k_way_memory", "allocation_shape", "residual_sensitivity",
           "public_snr",
           "auto_mix", "mix_rule", "MIX_RULES", "joint_auto", "onehot_psd", "default_tolerance", "PSD_MIN_SNR",
           "binary_step", "table_metric", "block_cube_basis", "block_cube_order",
           "noise_scales", "measure", "Measurement", "release", "parse_workload", "check_joint",
           "binary_fourier_form", "residuals_from_fourier", "JOINT_MAX_N", "JOINT_AUTO_MAX_N", "JOINT_MAX_ITER",
           "measured_sets", "set_snr", "skip_threshold", "ipf_table", "AUTO_SKIP_SNR", "sigma0_of",
           "SELECT_ONE_WAY", "select_one_way", "select_one_way_plan", "select_one_way_statistic",
           "select_one_way_release", "select_one_way_sensitivity", "SELECTIONS", "shrink_one_way", "ONE_WAY_SHRINK",
           "ONE_WAY_SHRINK_BAND", "shrink_residuals", "RESIDUAL_SHRINK_BANDS", "RESIDUAL_SHRINK",
           "ONE_WAY_L1_DRAWS", "select_one_way_estimate", "james_stein_factor", "SELECT_PAIRS", "select_pairs",
           "SELECT_PAIRS_SKIP_SNR", "SELECT_PAIRS_EXTRAPOLATION", "select_pairs_plan", "select_pairs_choose",
           "select_pairs_statistic", "select_pairs_sensitivity",
           "select_pairs_release"]

ALLOCATIONS = ("auto", "rp", "equal-tables")

#: ``selection=`` of :func:`release`: ``"none"`` (the default: the measurement is a function of public quantities
#: only, two datasets with the same public parameters get the same noise scales) or ``"one-way"`` (the private 1-way
#: selection, :func:`select_one_way`: a differentially private, separately budgeted step that may add 1-way sets the
#: public rule skips; the noise scales then depend on its noisy output) or ``"pairs"`` (the private pair selection,
#: :func:`select_pairs`: a separately budgeted Gaussian mechanism on the pairs' dependence chooses which attribute
#: pairs to measure; the others are dropped and extrapolated)
SELECTIONS = ("none", "one-way", "pairs")

#: how a bad marginal order is named in its error (the bound is the number of attributes)
K_NAME = "k (the marginal order, at most the number of attributes)"


# ====================================================================== workload


def parse_workload(domain: Domain, k: int, workload: Any = None) -> list[tuple[int, ...]]:
    """Sorted attribute tuples of the workload (default: all ``k``-way sets); names or indices."""
    k = check_int(k, K_NAME, minimum=1, maximum=domain.n)
    if workload is None:
        return all_k_way(domain.n, k)
    if isinstance(workload, (str, bytes)) or not hasattr(workload, "__iter__"):
        raise InvalidParameterError("workload must be a list of attribute sets (indices or names)")
    out = []
    for w in workload:
        idx = tuple(sorted(domain.indices(w, "workload")))
        if not idx:
            raise InvalidParameterError("workload sets must be non-empty")
        if len(idx) > k:
            raise InvalidParameterError(f"workload set {list(w)} has more than k={k} attributes; raise k")
        out.append(idx)
    if not out:
        raise InvalidParameterError("workload must contain at least one attribute set")
    return list(dict.fromkeys(out))


def _public_sizes(data: Any, domain: Any) -> tuple[int, ...] | None:
    """Attribute sizes known without reading a record: the Dataset's domain, ``domain=`` with the
    array's column count, or all 2 for an array without a domain (binary data; checked later)."""
    from sosproj.data.domain import Dataset, Domain

    if isinstance(data, Dataset):
        return tuple(data.domain.sizes)
    shape = getattr(data, "shape", None)
    if shape is None or len(shape) != 2:
        return None                      # as_dataset gives the precise error
    n = int(shape[1])
    return (2,) * n if domain is None else tuple(Domain.parse(domain, n).sizes)


def check_all_k_way_memory(sizes: Sequence[int], k: int) -> None:
    """Refuse all ``k``-way sets at once, from the sizes alone, before the workload is enumerated.

    Cells: the elementary symmetric polynomial ``e_k(sizes)`` (``O(n k)``); per set, about 1 KB of
    index structures besides its cells.
    """
    from sosproj.validation import check_memory

    e = [1.0] + [0.0] * k
    for s in sizes:
        for j in range(k, 0, -1):
            e[j] += e[j - 1] * s
    n_sets = math.comb(len(sizes), k)
    check_memory(8.0 * 12 * 2 * e[k] + 1024.0 * n_sets,
                 f"all {n_sets:,} {k}-way tables ({e[k]:,.0f} cells) and their residuals")


# ====================================================================== allocation


def _set_stats(layout: ResidualLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p_A, v_A, d_A)`` per closure set (see the module docstring)."""
    sizes = layout.sizes
    p = np.array([math.prod((sizes[i] - 1) / sizes[i] for i in s) for s in layout.residual_sets])
    d = layout.normal_diag_sets
    v = np.array([math.prod(sizes[i] - 1 for i in s) for s in layout.residual_sets]) * d
    return p, v, d


def public_snr(m: int, epsilon: float, layout: ResidualLayout) -> float:
    r"""Public signal-to-noise ratio :math:`m\varepsilon\sqrt{T}/C` (``T`` workload tables, ``C`` cells).

    The mean count per cell, ``m T / C``, over the order of the noise per cell of equal-noise
    tables, ``sqrt(T) / epsilon`` (up to the ``sqrt(log(1/delta))`` factor); public quantities only.

    >>> from sosproj.data.residuals import ResidualLayout, all_k_way
    >>> round(public_snr(1000, 1.0, ResidualLayout((2, 2, 2), all_k_way(3, 2))), 4)  # 1000 sqrt(3) / 12
    144.3376
    """
    T = max(len(layout.workload), 1)
    return float(m) * float(epsilon) * math.sqrt(T) / max(layout.tab_size, 1)


#: Parameters of :func:`auto_mix` ``(t_max, snr_0, power)``, fitted to ``benchmarks/results_allocation/``
#: (docs/bench_allocation.md): for the ``"lnn"`` reconstruction, and for binary data reconstructed
#: with the Boolean-cube projection (``reconstruction="auto"`` above :data:`JOINT_AUTO_MAX_N` attributes).
AUTO_MIX = (2.0, 7.0, 1.5)
AUTO_MIX_CUBE = (1.0, 15.0, 1.0)
#: ``(t_max, snr_0, power, snr_lo, power_lo)`` (the one-hot rule's form) for binary data too wide for
#: the cube step, reconstructed by the LNN projection in the table metric (``reconstruction="auto"``,
#: :func:`table_metric`): ResidualPlanner's allocation (``t = 0``) at low SNR, up to ``t = 0.27`` around
#: SNR 30-50; fitted to ``benchmarks/results_allocation/planted_mix_fit.txt`` (15 synthetic cells, mean
#: regret 0.24% against 0.45% for ``t = 0``; docs/bench_allocation.md, "Wide binary data").
AUTO_MIX_TABLE = (0.3, 300.0, 1.0, 8.0, 3.0)
#: ``(t_max, snr_0, power, snr_lo, power_lo)`` for categorical data reconstructed with the one-hot
#: degree-2 PSD (``reconstruction="auto"`` at public SNR >= :data:`PSD_MIN_SNR`): the :data:`AUTO_MIX` curve
#: times a fall-off at very low SNR, fitted when that reconstruction ran the PSD step at every SNR
#: (``benchmarks/results_allocation/fit_onehot.txt``; at SNR >= 10, where it now applies, the fall-off
#: factor is above 0.99999).
AUTO_MIX_ONEHOT = (2.0, 7.0, 1.5, 0.02, 3.0)
#: ``(t_max, snr_0, power, snr_lo, power_lo)`` for categorical data reconstructed with the LNN projection
#: (``reconstruction="auto"`` below :data:`PSD_MIN_SNR` or where the PSD step is unaffordable, and
#: ``reconstruction="lnn"``): the :data:`AUTO_MIX` curve times the low-SNR fall-off re-fitted with the LNN
#: reconstruction on synthetic categorical data (``benchmarks/results_allocation/fit_lnncat.txt``).
AUTO_MIX_CAT_LNN = (2.0, 7.0, 1.5, 0.015, 6.0)

#: ``(t_max, snr_0, power)`` for binary data reconstructed by the projection onto the EXACT marginal polytope
#: (``reconstruction="joint"``, and ``"auto"`` up to :data:`JOINT_AUTO_MAX_N` attributes: :func:`joint_auto`), fitted
#: on synthetic binary data with that reconstruction (issue 14, session 37: ``benchmarks/mix37_study.py``,
#: ``benchmarks/mix37_fit.py``, ``benchmarks/results_marginals/mix37/fit_seed0.txt``; docs/bench_allocation.md,
#: "Binary data with the exact polytope"). Flatter than :data:`AUTO_MIX_CUBE`: less weight on the low orders at low
#: SNR, more at high SNR (the exact polytope recovers the high orders better from precise low orders). Held out on
#: nltcs (``summary_nltcs.txt``, paired): 0.994 over the six epsilons, 0.992 at epsilon 0.3 (20 seeds); the report's
#: rows (``v20_vs_v19.txt``, 100 seeds) cost 0.2% at epsilon 0.03 and 0.1 and gain about 1% from 0.3.
AUTO_MIX_JOINT = (1.2, 7.0, 0.5)

#: The rules of :func:`auto_mix`, by the reconstruction that follows the measurement (:func:`mix_rule`).
MIX_RULES = ("lnn", "cube", "joint", "onehot", "cat-lnn", "table")


def auto_mix(snr: float, cube: bool = False, *, rule: str | None = None) -> float:
    r"""Weight ``t`` of the equal-tables shape in the ``"auto"`` allocation.

    ``t = t_max / (1 + (snr / snr_0)^power)``, for the categorical rules times
    ``1 / (1 + (snr_lo / snr)^power_lo)``: ``t -> t_max`` (past equal tables: more budget on the low
    orders) at low signal-to-noise, ``t -> 0`` (ResidualPlanner's optimum) at high signal-to-noise,
    and for categorical data back towards 0 at very low signal-to-noise, where the synthetic studies
    found ResidualPlanner's allocation better again. ``rule`` is ``"lnn"`` (:data:`AUTO_MIX`),
    ``"cube"`` (:data:`AUTO_MIX_CUBE`; also ``cube=True``), ``"joint"`` (:data:`AUTO_MIX_JOINT`: binary data
    reconstructed by the exact marginal polytope), ``"onehot"`` (:data:`AUTO_MIX_ONEHOT`),
    ``"cat-lnn"`` (:data:`AUTO_MIX_CAT_LNN`) or ``"table"`` (:data:`AUTO_MIX_TABLE`: binary data
    reconstructed in the table metric); :func:`mix_rule` picks it from the reconstruction, which is
    public, so the rule may depend on it. A fixed function of :func:`public_snr` (public quantities
    only); continuous in ``snr`` (``t(0) = 0`` for the rules with a fall-off).

    >>> round(auto_mix(7.0), 3), round(auto_mix(1e4), 4)
    (1.0, 0.0)
    """
    rule = ("cube" if cube else "lnn") if rule is None else rule
    snr = max(float(snr), 0.0)
    if rule == "onehot":
        t_max, snr0, power, snr_lo, power_lo = AUTO_MIX_ONEHOT
    elif rule == "cat-lnn":
        t_max, snr0, power, snr_lo, power_lo = AUTO_MIX_CAT_LNN
    elif rule == "cube":
        (t_max, snr0, power), snr_lo, power_lo = AUTO_MIX_CUBE, 0.0, 1.0
    elif rule == "joint":
        (t_max, snr0, power), snr_lo, power_lo = AUTO_MIX_JOINT, 0.0, 1.0
    elif rule == "lnn":
        (t_max, snr0, power), snr_lo, power_lo = AUTO_MIX, 0.0, 1.0
    elif rule == "table":
        t_max, snr0, power, snr_lo, power_lo = AUTO_MIX_TABLE
    else:
        raise InvalidParameterError(f"rule must be one of {MIX_RULES}; got {rule!r}")
    t = t_max / (1.0 + (snr / snr0) ** power)
    if snr_lo > 0.0:
        t = t / (1.0 + (snr_lo / snr) ** power_lo) if snr > 0.0 else 0.0
    return t


#: Solver tolerance of the projections when ``options`` gives none: ``min(DEFAULT_TOL, TOL_SNR / snr)``,
#: with the iteration cap raised to ``TIGHT_MAX_ITER`` whenever it is below ``DEFAULT_TOL``.
DEFAULT_TOL = 1e-3
TOL_SNR = 0.005
TIGHT_MAX_ITER = 5000


def default_tolerance(snr: float) -> float:
    r"""Stopping tolerance of the reconstruction's projections, from the public SNR.

    The projections stop when (among others) the final mixing weight with the uniform tables,
    ``theta``, is ``<= tol``; that mixing moves every table by at most ``2 theta m`` in L1, a bias of
    up to ``2 tol`` in L1 per marginal / ``m``, while the statistical error of a release is of order
    ``1 / snr`` (:func:`public_snr`). ``tol = min(1e-3, 0.005 / snr)`` keeps that bias about 1% of the
    noise at every SNR; measured on synthetic skewed binary data
    (``benchmarks/results_allocation/highsnr_tol.txt``, docs/bench_allocation.md): at
    ``epsilon = 3`` and ``10`` the fixed ``1e-3`` cost up to 23% in error, which ``0.005 / snr``
    recovers. Post-processing: no privacy impact.

    >>> default_tolerance(1.0), default_tolerance(50.0)
    (0.001, 0.0001)
    """
    snr = float(snr)
    return DEFAULT_TOL if snr <= 0 else min(DEFAULT_TOL, TOL_SNR / snr)


#: Cap and factor of the Boolean-cube step's tolerance (:func:`cube_tolerance`).
CUBE_TOL_MAX = 1e-4
CUBE_TOL_FACTOR = 1.0


def cube_tolerance(tol: float) -> float:
    r"""Stopping tolerance of the Boolean-cube step of ``reconstruction="auto"`` (:func:`_cube_then_lnn`)
    given the reconstruction's tolerance ``tol`` (:func:`default_tolerance`, or the caller's).

    ``min(CUBE_TOL_MAX, CUBE_TOL_FACTOR * tol)``. The cube step only moves the measurement to a better
    starting point: the LNN projection that follows runs at ``tol`` itself and alone decides the
    released tables' feasibility and their final mixing weight ``theta`` (the bias that
    :func:`default_tolerance` bounds). A function of ``tol`` only (public); post-processing.

    >>> cube_tolerance(1e-3), cube_tolerance(1e-6)
    (0.0001, 1e-06)
    """
    return min(CUBE_TOL_MAX, CUBE_TOL_FACTOR * float(tol))


#: Certified-distance stop of the full cube step in the measurement metric (``gap_tol`` of
#: :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`; ``None``: the residual test alone). With a
#: value ``c`` the step also ends once the duality gap certifies that its measured Fourier moments lie
#: within ``c * sqrt(#measured moments)`` of the exact projection's in the a-norm (``a`` = inverse noise
#: variance, so ``sqrt(#measured)`` is the noise's own a-norm scale; :mod:`sosproj.sdp.cube_gap`, with the
#: polished certificate); a constant, so public. Default 0.05: 5% of the noise's scale, about what main's
#: residual test certified (its answers were certified to 0.03-0.09 of the noise scale on nltcs, and at
#: epsilon >= 3 it ran to the 5,000-iteration cap). Measured in docs/bench_peers.md
#: (benchmarks/results_peers/runtime_v10/). Before the cumulant start and the polished certificate
#: (runtime_v9, paired with e1ff240): ``c = 0.05`` cut the release's CPU to 0.84x / 0.47x / 0.90x at
#: epsilon 1 / 3 / 10 for +0.004% / +0.032% / +0.023% L1, ``c = 0.1`` to 0.53x / 0.28x / 0.57x for
#: +0.02% / +0.14% / +0.11%.
CUBE_GAP_TOL: float | None = 0.05

#: Starting values of the unmeasured moments of the full cube step in the measurement metric (``init`` of
#: :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`): ``"cumulant"``, the cumulant closure of the
#: measured moments (:mod:`sosproj.sdp.cube_init`; post-processing of the noisy measurement, a fixed rule).
#: The block-cube step (table metric, principal submatrix) keeps ``"zero"``.
CUBE_INIT = "cumulant"

#: Anderson memory of the full cube step in the measurement metric (``anderson`` of
#: :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`: safeguarded type-II Anderson acceleration of
#: its ADMM fixed-point map; 0 = the plain ADMM), used up to moment-matrix order :data:`CUBE_ANDERSON_MAX_ORDER`
#: (measured on nltcs, order 137; larger orders keep the plain ADMM until measured). Same problem, same stop,
#: same certificate. On the captured nltcs cube problems (5 seeds each, same run, interleaved;
#: benchmarks/results_peers/runtime_v12/captured_final.txt) memory 20 took 0.56x / 0.47x / 0.44x / 0.44x the
#: plain ADMM's iterations at epsilon 0.3 / 1 / 3 / 10 and 0.68x / 0.56x / 0.56x / 0.56x its CPU. Memory 10 and
#: 30 (first implementation, captured_memory.txt): 0.69x / 0.67x / 0.88x / 0.72x and 0.80x / 0.63x / 0.68x /
#: 0.60x CPU against 0.74x / 0.64x / 0.64x / 0.59x for 20; a constant, so public.
CUBE_ANDERSON = 20
#: largest moment-matrix order given :data:`CUBE_ANDERSON` (the memory is ``2 m`` matrices of that order)
CUBE_ANDERSON_MAX_ORDER = 300


def _cube_order(n: int, degree: int, basis: Any) -> int:
    """Order of the cube step's moment matrix: ``len(basis)``, or the number of subsets of size <= degree/2."""
    if basis is not None:
        return len(basis)
    return sum(math.comb(n, j) for j in range(min(degree // 2, n) + 1))


def binary_step(layout: ResidualLayout, snr: float) -> str:
    """The binary ``reconstruction="auto"`` step on this (public) layout at this public SNR.

    ``"cube"``: the full Boolean-cube step (:func:`cube_degree` not ``None``); ``"block-cube"``: the
    two-block degree-4 cube step (:func:`block_cube_basis`; workloads of order <= 3, moment matrix
    order <= :data:`BLOCK_CUBE_MAX_ORDER`, public SNR below :data:`BLOCK_CUBE_MAX_SNR`); else
    ``"table"``: the LNN projection in the table metric (:func:`_table_lnn`). Public quantities only.
    """
    n = len(layout.sizes)
    k = max((len(A) for A in layout.residual_sets), default=0)
    if cube_degree(n, k) is not None:
        return "cube"
    if k <= 3 and block_cube_order(n) <= BLOCK_CUBE_MAX_ORDER and float(snr) < BLOCK_CUBE_MAX_SNR:
        return "block-cube"
    return "table"


def joint_auto(layout: ResidualLayout) -> bool:
    """Whether ``reconstruction="auto"`` projects onto the exact marginal polytope (:func:`_joint`) on this
    (public) layout: binary data of at most :data:`JOINT_AUTO_MAX_N` attributes (the domain only)."""
    return all(s == 2 for s in layout.sizes) and len(layout.sizes) <= JOINT_AUTO_MAX_N


def mix_rule(layout: ResidualLayout, reconstruction: str, snr: float | None = None) -> str:
    """Which :func:`auto_mix` rule applies: the one fitted for the reconstruction actually run on this
    (public) layout at this public SNR (:func:`public_snr`).

    Binary data under ``reconstruction="auto"``: ``"joint"`` when the exact polytope runs (:func:`joint_auto`: up
    to :data:`JOINT_AUTO_MAX_N` attributes), else ``"cube"`` when a cube step runs (the full or the
    two-block one), ``"table"`` when the table-metric LNN projection runs (:func:`binary_step`).
    Categorical data (some attribute with more than 2 values): ``"onehot"`` when ``"auto"`` adds the
    one-hot PSD step (:func:`onehot_psd` and ``snr >= PSD_MIN_SNR``, the test of ``_auto``),
    ``"cat-lnn"`` when the LNN projection is what runs (``"auto"`` otherwise, and ``"lnn"``).
    Binary data under ``reconstruction="joint"`` (the exact polytope, the cube hierarchy at full degree):
    ``"joint"``. Everything else: ``"lnn"``. ``snr`` is required where the answer depends on it (a clear error
    otherwise).
    """
    categorical = not all(s == 2 for s in layout.sizes)
    if categorical and reconstruction == "lnn":
        return "cat-lnn"
    if reconstruction == "joint" and not categorical:   # the exact polytope
        return "joint"
    if reconstruction != "auto":
        return "lnn"
    if joint_auto(layout):
        return "joint"
    if not categorical:
        if snr is None:
            raise InvalidParameterError("mix_rule needs the public SNR (snr=public_snr(m, epsilon, layout)) "
                                        "for a binary layout: the binary reconstruction depends on it")
        return "table" if binary_step(layout, snr) == "table" else "cube"
    if not onehot_psd(layout):
        return "cat-lnn"
    if snr is None:
        raise InvalidParameterError("mix_rule needs the public SNR (snr=public_snr(m, epsilon, layout)) "
                                    "for a categorical layout under reconstruction='auto': the one-hot PSD "
                                    "step runs only from PSD_MIN_SNR")
    return "onehot" if float(snr) >= PSD_MIN_SNR else "cat-lnn"


def allocation_shape(layout: ResidualLayout, allocation: str, *, m: int, epsilon: float,
                     mix: float | None = None) -> np.ndarray:
    """Relative noise scales ``s_A`` per closure set (``s_{}`` = 1, not used under replace-one).

    Depends only on the layout (domain sizes + workload), ``m`` and ``epsilon``: never on records.
    ``mix`` overrides ``auto_mix(public_snr(...))`` for the ``"auto"`` rule (used by the study).
    """
    p, v, d = _set_stats(layout)
    nz = np.array([len(s) > 0 for s in layout.residual_sets])
    log_rp = np.zeros(len(p))
    log_eq = np.zeros(len(p))
    log_rp[nz] = 0.5 * (np.log(p[nz]) - np.log(v[nz]))
    log_eq[nz] = -np.log(d[nz])
    if allocation == "rp":
        t = 0.0
    elif allocation == "equal-tables":
        t = 1.0
    elif allocation == "auto":
        t = auto_mix(public_snr(m, epsilon, layout)) if mix is None else float(mix)
    else:  # pragma: no cover - checked at the door
        raise InvalidParameterError(f"allocation must be one of {ALLOCATIONS}")
    log_s2 = (1.0 - t) * log_rp + t * log_eq
    log_s2[nz] -= log_s2[nz].mean() if nz.any() else 0.0
    return np.exp(0.5 * log_s2)


# ====================================================================== sensitivity


def _swap_maps(layout: ResidualLayout) -> tuple[list[list[int]], list[np.ndarray] | None]:
    """The layout's candidate classes of interchangeable attributes (equal sizes) and, per swap of a class's
    first attribute with another member, the index of each residual set's image (``None`` when some swap does
    not map the workload onto itself). Depends on the layout only: cached per layout object."""
    hit = _SWAP_CACHE.get(layout)
    if hit is not None:
        return hit
    sizes = layout.sizes
    wl = set(layout.workload)
    by_size: dict[int, list[int]] = {}
    for i, n_i in enumerate(sizes):
        by_size.setdefault(n_i, []).append(i)
    pos = layout.res_pos
    maps: list[np.ndarray] | None = []
    for cls_ in by_size.values():
        for j in cls_[1:]:
            perm = list(range(len(sizes)))
            perm[cls_[0]], perm[j] = j, cls_[0]
            if {tuple(sorted(perm[a] for a in w)) for w in wl} != wl:
                maps = None
                break
            img = np.empty(len(pos), dtype=np.intp)
            for A, i in pos.items():
                img[i] = pos[tuple(sorted(perm[a] for a in A))]
            maps.append(img)
        if maps is None:
            break
    hit = (list(by_size.values()), maps)
    _SWAP_CACHE[layout] = hit
    return hit


_SWAP_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _attribute_classes(layout: ResidualLayout, s: np.ndarray) -> list[list[int]] | None:
    """Classes of interchangeable attributes (same size, workload and ``s`` invariant under swaps).

    ``s`` is invariant under a swap when ``math.isclose(s[image(A)], s[A], rel_tol=1e-9)`` for every set ``A``
    (here vectorized: equal, or both finite and ``|a - b| <= 1e-9 max(|a|, |b|)``: the same test); the swaps'
    set images come from :func:`_swap_maps` (the layout's, cached)."""
    classes, maps = _swap_maps(layout)
    if maps is None:
        return None
    s = np.asarray(s, dtype=float)
    fin = np.isfinite(s)
    for img in maps:
        a, b = s[img], s
        with np.errstate(invalid="ignore", over="ignore"):
            close = (a == b) | (fin[img] & fin & (np.abs(a - b) <= 1e-9 * np.maximum(np.abs(a), np.abs(b))))
        if not close.all():
            return None
    return classes


#: Largest number of difference patterns evaluated by the exact sensitivity search.
MAX_PATTERNS = 1 << 22


def residual_sensitivity(layout: ResidualLayout, s: np.ndarray, adjacency: Adjacency) -> dict[str, Any]:
    r"""Exact :math:`\ell_2` sensitivity of the whitened measurement ``(c_A / s_A)_A``.

    Add/remove (the empty set's total is measured too):
    :math:`\Delta^2 = \sum_A p_A / s_A^2` (one record adds :math:`\otimes_{i\in A}P_ie_{x_i}`,
    of squared norm :math:`p_A`).

    Replace-one (``m`` public, the total not measured): records ``x, x'`` differing exactly on the
    attributes ``D`` move ``c_A`` by a vector of squared norm
    :math:`2\bigl(p_A - \prod_{i\in A\setminus D}(1-\tfrac1{n_i})\prod_{i\in A\cap D}(-\tfrac1{n_i})\bigr)`
    (since :math:`\langle P e_a, P e_b\rangle = -1/n` for ``a != b``), which depends only on ``D``;
    every ``D`` is realizable (each attribute has at least two values), so
    :math:`\Delta^2 = \max_D \sum_A (\ldots)/s_A^2`. The maximum runs over difference *patterns*:
    over all ``2^n`` subsets, or over the counts per class of interchangeable attributes when the
    workload and ``s`` are symmetric (e.g. all ``k``-way sets: classes = equal sizes), exactly. When
    neither fits in :data:`MAX_PATTERNS`, the sum of the per-set maxima is used: an upper bound
    (conservative privacy), reported as ``exact=False``.
    """
    sets = layout.residual_sets
    sizes = np.array(layout.sizes, dtype=float)
    inv_s2 = 1.0 / np.asarray(s, dtype=float) ** 2
    p = np.array([math.prod((sizes[i] - 1) / sizes[i] for i in A) for A in sets])
    if adjacency is Adjacency.ADD_REMOVE:
        return {"sensitivity": float(math.sqrt(np.sum(p * inv_s2))), "exact": True, "patterns": 1,
                "worst_pattern_size": None}
    nonempty = [i for i, A in enumerate(sets) if A]
    kmax = max((len(A) for A in sets), default=0)
    idx = np.full((len(nonempty), max(kmax, 1)), -1, dtype=np.int64)
    for r, i in enumerate(nonempty):
        idx[r, :len(sets[i])] = sets[i]
    w = inv_s2[nonempty]
    pn = p[nonempty]
    valid = idx >= 0
    same = np.where(valid, 1.0 - 1.0 / sizes[np.maximum(idx, 0)], 1.0)     # factor if i not in D
    diff = np.where(valid, -1.0 / sizes[np.maximum(idx, 0)], 1.0)          # factor if i in D

    cols = np.maximum(idx, 0)

    def value(Dmask: np.ndarray) -> np.ndarray:               # Dmask: (C, n) bool -> (C,)
        # prod_q (diff if attribute q of A is in D else same), factor by factor in q's order (a padded slot has
        # diff = same = 1): the product the reduction along q forms, without the (C, sets, k) temporaries
        prod = np.where(Dmask[:, cols[:, 0]], diff[None, :, 0], same[None, :, 0])
        for q in range(1, idx.shape[1]):
            prod *= np.where(Dmask[:, cols[:, q]], diff[None, :, q], same[None, :, q])
        return (2.0 * (pn[None] - prod)) @ w

    n = len(layout.sizes)
    classes = _attribute_classes(layout, np.asarray(s))
    if classes is not None and math.prod(len(c) + 1 for c in classes) <= MAX_PATTERNS:
        # row r: the first q_c members of every class c in D, (q_c) the r-th count vector of the lexicographic
        # product (itertools.product's order)
        counts = np.array(list(itertools.product(*[range(len(c) + 1) for c in classes])), dtype=np.intp)
        patterns = np.zeros((len(counts), n), dtype=bool)
        for col, c in enumerate(classes):
            for q, attr in enumerate(c):
                patterns[:, attr] = counts[:, col] > q
    elif 2**n <= MAX_PATTERNS:
        patterns = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    else:
        per = np.zeros(len(nonempty))
        for r in range(len(nonempty)):
            j = int(valid[r].sum())
            for mask in range(1, 2**j):
                dm = np.array([(mask >> q) & 1 for q in range(j)], dtype=bool)
                prod = np.prod(np.where(dm, diff[r, :j], same[r, :j]))
                per[r] = max(per[r], 2.0 * (pn[r] - prod) * w[r])
        return {"sensitivity": float(math.sqrt(per.sum())), "exact": False, "patterns": None,
                "worst_pattern_size": None}
    best, arg = -1.0, 0
    for lo in range(0, len(patterns), 4096):
        vals = value(patterns[lo:lo + 4096])
        j = int(np.argmax(vals))
        if vals[j] > best:
            best, arg = float(vals[j]), lo + j
    return {"sensitivity": float(math.sqrt(max(best, 0.0))), "exact": True, "patterns": int(len(patterns)),
            "worst_pattern_size": int(patterns[arg].sum())}


#: Thresholds ``(tau_1, tau_2, tau_3)`` of the ``"auto"`` allocation's skip rule on categorical data
#: (:func:`measured_sets`): a residual set of order ``k`` is measured only when its public set SNR
#: (:func:`set_snr`) is at least ``tau_min(k, 3)``; ``(0, 0, 0)``: every set measured, as before the rule.
#: ``(5, 5)`` (session 27, ``benchmarks/results_catrule/fit_summary.txt``) became ``(5, 5, 8)`` in session 29
#: (the higher bar for sets of order >= 3: 41 synthetic cells, geometric mean 0.998 fit / 0.989 held out, worst
#: 1.011; ``benchmarks/results_catrule/cat29/``) and **``(2.5, 5, 8)`` in session 31, together with the James-Stein
#: shrinkage of the 1-way sets measured below 5** (:data:`ONE_WAY_SHRINK`, :func:`shrink_one_way`): fitted on a
#: documented mix of Dirichlet latent-class and binned-numeric ("GEO") synthetic shapes, 144 cells seen (geometric
#: mean 0.990, worst 1.029) and 42 fresh held-out cells (0.989, worst 1.021, best 0.880); a lower ``tau_1`` alone
#: loses up to 11% on the Dirichlet shapes (a wide near-uniform attribute's measured table is worse than the
#: uniform one) and the shrinkage pulls those tables back (``benchmarks/results_catrule/pubrule31/``,
#: docs/bench_allocation.md). Evaluated once after the choice: titanic 0.806x main at epsilon 0.3 (Fare measured),
#: 0.965x at 1 (Age measured), identical releases elsewhere and on adult and nltcs. **``(2.5, 5, 12)`` since
#: session 33**: with every measured 2-3-way set shrunk (:data:`RESIDUAL_SHRINK`) the rule measured too many
#: low-SNR 3-way sets; tau33's seen shapes (118 cells) 0.982, worst 1.030; the fresh set H (committed before its
#: rows) 0.972, worst 1.019 [1.013, 1.026]; once on real data titanic 0.993 / 0.990 at epsilon 3 / 10, adult 0.999 /
#: 0.995 / 0.987 / 0.924 / 0.971 at 0.1-10 (at 1 / 3 with the PSD step off, :data:`PSD_MAX_ORDER`), identical
#: elsewhere (``benchmarks/results_catrule/lead33/``, docs/bench_allocation.md). Session 34 (branch oneway34, not
#: adopted): lower 1-way bars ``tau_1`` in {0, 1, 1.5, 2} or a low-SNR floor (:data:`ONE_WAY_LOW_SNR_FLOOR`) with
#: stein31's hybrid shrinkage lose up to 16% (``tau_1 = 2``) to 110% (``tau_1 = 0``) on flat / small-m synthetic
#: shapes (190 seen cells, no variant with a worst cell <= 1.02; ``benchmarks/results_catrule/oneway34/``).
AUTO_SKIP_SNR = (2.5, 5.0, 12.0)
#: Share of the maximal sets below their threshold that one round of :func:`measured_sets` drops (the lowest
#: set SNRs first) before it re-calibrates; 1: all of them at once (the rule). A study knob
#: (``benchmarks/catrule_drop.py``): dropping half per round measured 0.987 on the fit shapes but 1.002 held out
#: (worst 1.056), not adopted.
SKIP_DROP_FRACTION = 1.0
#: The constant ``c`` of the positive-part James-Stein shrinkage (:func:`shrink_one_way`) that the categorical skip
#: rule applies, after the measurement (post-processing: the noise scales and the privacy are those of the
#: measurement), to every measured 1-way residual whose public set SNR is below :data:`ONE_WAY_SHRINK_BAND`
#: (``n_i >= 4``): its table is pulled toward the uniform one when the noisy measurement cannot tell it from noise.
#: 1 (session 31; 0.5 measured 0.991, worst 1.054 on the fit cells); 0: off (session 29's rule with ``tau_1 = 5``).
ONE_WAY_SHRINK = 1.0
#: The public set SNR below which :data:`ONE_WAY_SHRINK` applies to a measured 1-way set (session 29's ``tau_1``).
ONE_WAY_SHRINK_BAND = 5.0
#: The public set SNR bands ``(B_2, B_3)`` below which the positive-part James-Stein factor of
#: :func:`shrink_residuals` (constant :data:`RESIDUAL_SHRINK`) shrinks a measured residual set of order 2 / of order
#: >= 3 with ``q_A = prod (n_i - 1) >= 3`` toward zero residual (toward the additive table its subsets' residuals
#: imply; NOT the maximum-entropy table used for skipped sets); 0: off; ``inf``: every such measured set (the
#: factor itself adapts to the noisy residual). Part of the
#: categorical ``"auto"`` skip rule since session 32 (branch stein32, ``benchmarks/results_catrule/stein32/``,
#: docs/bench_allocation.md): with ``c = 1`` it gained 0.918 / 0.901 (seen / fresh set F) but lost up to 10.8% on
#: skewed (Dirichlet 0.1) shapes, whose tables have structural zeros that shrinking toward the extrapolation fills;
#: with ``c = 0.25``: 169 seen cells 0.968 (worst 1.013), fresh set G 0.970 (worst 1.016 [1.009, 1.024], skewed
#: shapes), and once on real data: titanic 0.995 / 0.998 / 0.985 at epsilon 1 / 3 / 10, adult 0.969-0.988 at 0.1-10,
#: identical elsewhere and on nltcs (binary: no skip rule).
RESIDUAL_SHRINK_BANDS: tuple[float, ...] = (math.inf, math.inf)
#: The constant ``c`` of that factor for the sets of order >= 2 (:data:`ONE_WAY_SHRINK` stays the 1-way sets'):
#: 0.25 (session 32; ``c = 1``, the risk-minimizing constant on the residuals, loses up to 10.8% on the released
#: tables of skewed shapes, see :data:`RESIDUAL_SHRINK_BANDS`; any ``0 < c < 2`` dominates the raw residual).
RESIDUAL_SHRINK = 0.25
#: Study knob (session 31, after the choice; not adopted): the factor's degrees-of-freedom offset, ``max(0, 1 - c (q -
#: o) sigma^2 / ||y||^2)`` for every measured 1-way set below the band with ``q > o``; 2: James-Stein (the rule);
#: 0: a Stein-type factor that also shrinks the 2-3-value attributes. Branch stein31 (fresh synthetic set D, 19
#: cells, 30 seeds): 0 against 2 0.994, worst 1.013; evaluation titanic 0.3 1.0035 [1.0023, 1.0047] (Fare, q = 31,
#: shrunk more than by James-Stein), 0.03 0.998, identical elsewhere: not adopted
#: (``benchmarks/results_catrule/stein31/notes.md``).
ONE_WAY_SHRINK_OFFSET = 2
#: Study knobs of session 31, not adopted (``benchmarks/pubrule_study.py``, records in
#: ``benchmarks/results_catrule/pubrule31/``): ``ONE_WAY_CELL_SNR = b`` makes the bar of the 1-way set ``{i}``
#: ``min(tau_1, max(ONE_WAY_FLOOR, b sqrt(n_i)))`` (a per-cell SNR bar for small attributes; held out worst
#: 1.05-1.26); ``None``: ``tau_1`` for every 1-way set (the rule).
ONE_WAY_CELL_SNR: float | None = None
#: See :data:`ONE_WAY_CELL_SNR`; 0: no floor.
ONE_WAY_FLOOR = 0.0
#: Study knob (session 31, not adopted: worst cell 1.047-1.054 on the fit shapes): the 1-way sets of attributes with
#: fewer than this many values keep the bar ``max(tau_1, ONE_WAY_SHRINK_BAND)``; 0: off (the rule).
ONE_WAY_LOW_MIN_SIZE = 0
#: Study knob (session 34, branch oneway34; ``benchmarks/results_catrule/oneway34/``): ``True`` shrinks the measured
#: 1-way sets below :data:`ONE_WAY_SHRINK_BAND` with ``q = n_i - 1 <= 2`` (the 2-3-value attributes, which
#: James-Stein leaves alone) by the Stein-type factor ``max(0, 1 - c q sigma^2 / ||y||^2)`` (offset 0), the
#: ``q >= 3`` sets by James-Stein as before: stein31's "hybrid" (fresh set E 0.992, worst 1.012). ``False``: the rule.
#: Not adopted: 190 seen cells 0.9958, worst 1.060 [1.027, 1.094]; fresh set I 0.9906, worst 1.049 [1.017, 1.082]
#: (small attributes at small m; Stein's factor needs ``q >= 3`` to dominate).
ONE_WAY_SHRINK_SMALL = False
#: Study knob (session 34, branch oneway34): a "low-SNR floor" of :func:`measured_sets`. When the rule's family
#: has no set of order >= 2 (:data:`ONE_WAY_LOW_SNR_WHEN` ``"no-higher"``) or a single non-empty set (``"one"``),
#: the 1-way bar ``tau_1`` is lowered to this value and the rule re-run (public: the condition reads the rule's own
#: public choice). ``None``: off (the rule).
ONE_WAY_LOW_SNR_FLOOR: float | None = None
#: When :data:`ONE_WAY_LOW_SNR_FLOOR` applies: ``"one"`` or ``"no-higher"`` (see there).
ONE_WAY_LOW_SNR_WHEN = "one"
#: Study knob (session 34, branch oneway34, round 2): the measured 1-way sets whose public set SNR is below this
#: value get the Stein-type factor with ``q`` (offset 0, every ``q >= 1``) instead of James-Stein's ``q - 2``: a
#: stronger pull to the uniform table for the sets a lower bar admits. 0: off (the rule).
ONE_WAY_STRONG_BELOW = 0.0


def skip_threshold(layout: ResidualLayout, allocation: str, reconstruction: str = "auto",
                   selection: str = "none") -> tuple[float, ...]:
    """The skip rule's threshold for this (public) layout, allocation, reconstruction and selection mode:
    :data:`AUTO_SKIP_SNR` for the ``"auto"`` allocation of categorical data (some attribute with more than 2
    values), :data:`SELECT_PAIRS_SKIP_SNR` there with ``selection="pairs"``, else 0 (binary data, the ``"rp"`` /
    ``"equal-tables"`` allocations and ``reconstruction="lnn-psd"``, whose one-hot moment matrix needs every
    attribute pair, measure every set)."""
    categorical = not all(n == 2 for n in layout.sizes)
    if not (allocation == "auto" and categorical and reconstruction != "lnn-psd"):
        return (0.0, 0.0)
    return SELECT_PAIRS_SKIP_SNR if selection == "pairs" else AUTO_SKIP_SNR


def sigma0_of(spec_args: dict[str, Any], sensitivity: float) -> float:
    r"""Noise scale of a Gaussian measurement of ``sensitivity`` given the share of the budget it gets.

    The calibrated :math:`\sigma = \Delta\,\sigma_1` (``gaussian_sigma(epsilon, delta, 1)``: every calibration is
    linear in :math:`\Delta`) is the Gaussian mechanism with :math:`\mu = 1/\sigma_1` in Gaussian DP (Dong, Roth
    and Su 2022); a measurement given the share ``f = spec_args.get("share", 1)`` of :math:`\mu^2` gets
    :math:`\sigma = \Delta\sigma_1/\sqrt f`. Gaussian mechanisms compose adaptively to one with
    :math:`\mu = \sqrt{\sum_i \mu_i^2}` (ibid., Cor. 3.3), so shares summing to 1 spend exactly the budget
    (``"analytic"``: Balle and Wang's exact profile of that Gaussian; ``"paper"`` / ``"classical"`` give a larger
    :math:`\sigma_1`, a smaller :math:`\mu`: still within the budget).
    """
    share = float(spec_args.get("share", 1.0))
    return gaussian_sigma(spec_args["epsilon"], spec_args["delta"], sensitivity,
                          spec_args["calibration"]) / math.sqrt(share)


def set_snr(layout: ResidualLayout, sigmas: np.ndarray, m: int) -> np.ndarray:
    r"""Public SNR of each residual set: :math:`m\sqrt{p_A} / (\sigma_A\sqrt{q_A})`, ``q_A = prod (n_i - 1)``.

    ``m^2 p_A`` is the largest squared norm the residual ``c_A`` of ``m`` records can have (all records on
    one cell: ``c_A = m \otimes_i P_i e_{x_i}``), ``q_A \sigma_A^2`` the expected squared norm of its noise
    (isotropic on its ``q_A``-dimensional subspace): the ratio bounds what the measurement of ``A`` can
    show; a 3-way set with a 91-value attribute among few records has a tiny one. ``inf`` for the empty
    set, 0 where ``sigma_A = inf``. Public quantities only (sizes, ``m``, the noise scales).
    """
    sizes = layout.sizes
    out = np.full(len(layout.residual_sets), np.inf)
    for i, A in enumerate(layout.residual_sets):
        if A:
            p = math.prod((sizes[a] - 1) / sizes[a] for a in A)
            q = math.prod(sizes[a] - 1 for a in A)
            out[i] = float(m) * math.sqrt(p / q) / float(sigmas[i]) if sigmas[i] > 0 else np.inf
    return out


def _immediate_superset_edges(sets: Sequence[tuple[int, ...]]) -> tuple[np.ndarray, np.ndarray]:
    r"""Pairs ``(i, j)`` of a family of sorted attribute tuples with ``sets[j] = sets[i] + one attribute``.

    For a family closed under subsets (a workload's closure, and every family :func:`measured_sets` keeps), a set
    has a strict superset in the family iff it has an immediate one: :math:`O(|\mathcal F|\,|\text{attrs}|)`
    dictionary look-ups instead of the all-pairs test.

    >>> _immediate_superset_edges([(), (0,), (1,), (0, 1)])
    (array([0, 0, 1, 2]), array([1, 2, 3, 3]))
    """
    pos = {tuple(A): i for i, A in enumerate(sets)}
    attrs = sorted({a for A in sets for a in A})
    sub: list[int] = []
    sup: list[int] = []
    for i, A in enumerate(sets):
        have = set(A)
        for x in attrs:
            if x not in have:
                j = pos.get(tuple(sorted((*A, x))))
                if j is not None:
                    sub.append(i)
                    sup.append(j)
    return np.array(sub, dtype=np.intp), np.array(sup, dtype=np.intp)


def measured_sets(layout: ResidualLayout, s: np.ndarray, spec_args: dict[str, Any], m: int,
                  threshold: float | tuple[float, ...], *, keep_sets: Sequence[tuple[int, ...]] = (),
                  drop_sets: Sequence[tuple[int, ...]] = (), l1_gamma: float = 0.0) -> np.ndarray:
    r"""Which residual sets the measurement keeps (bool per closure set; the empty set always ``True``).

    Start from every set; repeat: calibrate :math:`\sigma_A = \sigma_0 s_A` on the kept sets (exact
    sensitivity, :func:`residual_sensitivity` with :math:`s_A = \infty` on the dropped ones) and drop every
    kept set that is maximal among the kept ones (no kept superset) and whose :func:`set_snr` is below
    ``threshold`` (a number, or ``(tau_1, ..., tau_K)``: ``tau_k`` for the sets of order ``k``, the last one for
    every higher order; e.g. ``(tau_1, tau)``: ``tau_1`` for the 1-way sets, ``tau`` for the others); stop
    when there is none, or when one non-empty set is left. The kept family stays
    closed under subsets (an unmeasured set's estimate extrapolates its measured subsets,
    :func:`_reconstruct_skipped`). Dropping sets lowers the sensitivity, so the kept sets' SNR only rises;
    the loop ends after at most as many rounds as sets. Public quantities only: sizes, workload, ``m``,
    epsilon, delta, adjacency, calibration, the budget share ``spec_args.get("share", 1)`` (:func:`sigma0_of`).

    ``drop_sets`` (with every superset) start dropped and ``keep_sets`` are never dropped: the choice of the
    private 1-way selection (:func:`select_one_way`), itself differentially private; without them the rule is
    the public one.
    """
    sets = layout.residual_sets
    keep = np.ones(len(sets), dtype=bool)
    for D in drop_sets:
        d = set(D)
        keep &= np.array([not d <= set(A) for A in sets])
    fixed = np.zeros(len(sets), dtype=bool)
    for A in keep_sets:
        fixed[layout.res_pos[tuple(A)]] = True
    taus = [float(threshold)] if np.ndim(threshold) == 0 else [float(x) for x in threshold]
    if max(taus) <= 0:
        return keep
    tau_set = np.array([taus[min(len(A), len(taus)) - 1] if A else 0.0 for A in sets])
    if ONE_WAY_LOW_MIN_SIZE > 0:
        for i, A in enumerate(sets):
            if len(A) == 1 and layout.sizes[A[0]] < ONE_WAY_LOW_MIN_SIZE:
                tau_set[i] = max(tau_set[i], ONE_WAY_SHRINK_BAND)
    if ONE_WAY_CELL_SNR is not None:
        for i, A in enumerate(sets):
            if len(A) == 1:
                tau_set[i] = min(tau_set[i], max(ONE_WAY_FLOOR, ONE_WAY_CELL_SNR * math.sqrt(layout.sizes[A[0]])))
    s = np.asarray(s, dtype=float)
    nonempty = np.array([bool(A) for A in sets])
    sub, sup = _immediate_superset_edges(sets)
    while int(keep.sum()) > 2:                      # the empty set and at least one other
        sk = np.where(keep, s if l1_gamma == 0.0 else s * l1_correction(layout, keep) ** l1_gamma, np.inf)
        sens = residual_sensitivity(layout, sk, spec_args["adjacency"])["sensitivity"]
        sigma0 = sigma0_of(spec_args, sens)
        snr = set_snr(layout, sigma0 * sk, m)
        # maximal among the kept sets: no kept immediate superset (the kept family is closed under subsets, so
        # a kept strict superset implies a kept immediate one)
        covered = np.bincount(sub, weights=keep[sup], minlength=len(sets)) > 0
        maximal = keep & nonempty & ~covered & ~fixed
        low = np.flatnonzero(maximal & (snr < tau_set))
        if low.size == 0:
            break
        if SKIP_DROP_FRACTION < 1.0:                # the lowest-SNR share of them only, then re-calibrate
            n_drop = max(1, math.ceil(SKIP_DROP_FRACTION * low.size))
            low = low[np.argsort(snr[low] / tau_set[low], kind="stable")[:n_drop]]
        if low.size >= int(keep.sum()) - 1:          # never drop every set: keep the best one
            low = low[low != low[np.argmax(snr[low])]]
        keep[low] = False
    floor = ONE_WAY_LOW_SNR_FLOOR
    if floor is not None and len(taus) > 1 and taus[0] > floor:
        higher = any(keep[i] for i, A in enumerate(sets) if len(A) >= 2)
        n_kept = int((keep & nonempty).sum())
        if (not higher) if ONE_WAY_LOW_SNR_WHEN == "no-higher" else n_kept <= 1:
            return measured_sets(layout, s, spec_args, m, (floor, *taus[1:]), keep_sets=keep_sets,
                                 drop_sets=drop_sets, l1_gamma=l1_gamma)
    return keep


#: Exponent ``g`` of the L1 correction of the categorical ``"auto"`` allocation (:func:`l1_correction`): after the
#: public skip rule has chosen the measured family, every measured set's relative noise ``s_A`` is multiplied by
#: ``r_A^g``, ``r_A`` the ratio of the L1-optimal shape to ResidualPlanner's on that family (the exact sensitivity is
#: then computed for the corrected shape, so the privacy is that of the measurement actually made); 0: off, the
#: default before session 37. **1 since session 37** (branch wide37, ``benchmarks/results_marginals/wide37/``,
#: docs/bench_allocation.md "The L1 correction"): ``g = 1`` is the L1 optimum of the unprojected estimate, no fitted
#: constant; on 69 synthetic cells with wide attributes (3 seeds, paired; ``raw_fit_summary_gated.txt``) geometric
#: mean 0.955, worst 1.006, best 0.849, where ``g = 1.5`` / ``2`` gained more on average (0.943 / 0.937) but lost up
#: to 1.2% / 2.2% (a wide binned attribute at epsilon 0.1). Only where the categorical skip rule runs AND skips some
#: set (binary data, and a categorical release that measures every set: no-op): on the 4 fit cells where every set
#: was measured the correction lost up to 2.8% (``w8-dir-m50k`` at 10: the allocation fitted for the projection
#: already holds there), while cells with 87-91% of the 3-way sets measured still gained 6-7%. Held out, once
#: (5 seeds, paired): titanic 0.975 / 0.938 / 0.900 / 0.911 at epsilon 0.3 / 1 / 3 / 10 (identical at 0.03 / 0.1),
#: adult 1.000 / 0.958 / 0.945 / 0.934 / 0.946 / 0.990 at 0.03-10; nltcs identical.
WIDE_L1_GAMMA = 1.0
#: Study knob (session 37, not adopted): the skip rule's own rounds (:func:`measured_sets`) calibrate with the
#: corrected shape (each round's ``s_A r_A(keep)^g`` on the family kept so far) instead of the uncorrected one; it
#: then measures fewer 3-way sets and lost up to 5% (``raw_fit_r1.txt``). ``False``: the rule.
WIDE_L1_IN_LOOP = False
#: The shrinkage bands (:func:`shrink_residuals`) read the set SNRs of the uncorrected noise scales (the same measured
#: family at ``g = 0``): the correction moves the budget but not the public choice of the sets shrunk. Without it a
#: wide 1-way set lifted just over :data:`ONE_WAY_SHRINK_BAND` lost its James-Stein factor and the release up to 6-8%
#: (session 37, ``raw_fit_r2.txt`` / ``raw_bandS_probe.txt``). ``True``: the rule.
WIDE_L1_BAND_UNCORRECTED = True


def l1_correction(layout: ResidualLayout, keep: np.ndarray, *, iters: int = 60) -> np.ndarray:
    r"""Ratio ``r_A = s_A^{L1} / s_A^{RP}`` per closure set of the L1-optimal relative noise to ResidualPlanner's on
    the measured family ``keep`` (1 on the other sets and the empty set). Public quantities only (sizes, workload,
    the public skip rule's ``keep``).

    Noise :math:`\sigma_B` on the (isotropic, ``q_B = prod (n_i - 1)``-dimensional) residual ``B`` adds the variance
    :math:`\sigma_B^2 q_B c_B / c_T^2` to each of the ``c_T`` cells of a workload table ``T \supseteq B``
    (:math:`d_B = \sum_{T\supseteq B} c_B / c_T`, ``layout.normal_diag_sets``), so the expected L1 error of ``T``
    is :math:`\sqrt{2/\pi}\,L_T` with :math:`L_T^2 = \sum_{B\subseteq T,\ B\ \mathrm{measured}} q_B c_B
    \sigma_B^2` (a skipped set adds no noise). ResidualPlanner minimizes the sum of cell variances
    :math:`\sum_T L_T^2 / c_T` under :math:`\sum_B p_B/\sigma_B^2 = \mathrm{const}`:
    :math:`\sigma_A^4 \propto p_A / (q_A c_A \sum_{T\supseteq A} 1/c_T)`. The workload's L1 error
    :math:`\sum_T L_T` (convex in :math:`\sigma`) has the stationary point
    :math:`\sigma_A^4 \propto p_A / (q_A c_A \sum_{T\supseteq A} 1/L_T)`: a table weighs ``1 / L_T`` instead of
    ``1 / c_T``. Where the skip rule leaves a wide table with only its low-order sets measured (a 91-value
    attribute at small ``m``), ``L_T`` is far below ``c_T sigma`` and those low-order sets get more of the budget.
    Solved by the fixed point above (a contraction by 1/4 in log ``sigma``), from ResidualPlanner's shape.
    """
    sizes = layout.sizes
    sets = layout.residual_sets
    idx = [i for i, A in enumerate(sets) if A and keep[i]]
    out = np.ones(len(sets))
    if len(idx) <= 1:
        return out
    col = {i: j for j, i in enumerate(idx)}
    rows, cols = [], []
    for t, T in enumerate(layout.workload):
        for r in range(1, len(T) + 1):
            for B in itertools.combinations(T, r):
                j = col.get(layout.res_pos[B])
                if j is not None:
                    rows.append(t)
                    cols.append(j)
    M = np.zeros((len(layout.workload), len(idx)))
    M[rows, cols] = 1.0
    p = np.array([math.prod((sizes[a] - 1) / sizes[a] for a in sets[i]) for i in idx])
    qc = np.array([math.prod((sizes[a] - 1) * sizes[a] for a in sets[i]) for i in idx])
    cT = np.array([float(math.prod(sizes[a] for a in T)) for T in layout.workload])
    used = M.sum(axis=0) > 0
    x_rp = np.sqrt(p / (qc * np.maximum(M.T @ (1.0 / cT), 1e-300)))
    x = x_rp.copy()
    for _ in range(iters):
        LT = np.sqrt(np.maximum(M @ (qc * x), 1e-300))
        W = M.T @ (1.0 / LT)
        x_new = np.sqrt(p / (qc * np.maximum(W, 1e-300)))
        x_new /= np.exp(np.mean(np.log(x_new)))
        if np.allclose(x_new, x, rtol=1e-10, atol=0.0):
            x = x_new
            break
        x = x_new
    ratio = np.sqrt(x / x_rp)
    ratio = np.where(used, ratio, 1.0)
    ratio /= np.exp(np.mean(np.log(ratio)))
    out[idx] = ratio
    return out


def noise_scales(layout: ResidualLayout, allocation: str, spec_args: dict[str, Any], m: int,
                 *, mix: float | None = None, skip: float | tuple[float, ...] | None = None,
                 reconstruction: str = "auto", keep_sets: Sequence[tuple[int, ...]] = (),
                 drop_sets: Sequence[tuple[int, ...]] = ()
                 ) -> tuple[np.ndarray, PrivacySpec, dict[str, Any]]:
    """``sigma_A`` per closure set, the privacy specification and the sensitivity report (public only).

    ``sigma_A = inf`` marks a set the measurement skips (:func:`measured_sets` with threshold ``skip``,
    default :func:`skip_threshold` of ``reconstruction``): it carries no noise and no data (its residual is 0
    in the measurement; :func:`_reconstruct_skipped` estimates it). ``spec_args["share"]`` (default 1): the
    share of the squared budget this measurement gets (:func:`sigma0_of`); ``keep_sets`` / ``drop_sets``: the
    private 1-way selection's choice (:func:`measured_sets`). Where the categorical skip rule runs, the measured
    sets' shape is then multiplied by the L1 correction ``r_A^g`` (:func:`l1_correction`, :data:`WIDE_L1_GAMMA`:
    a function of the public measured family) before the exact sensitivity is computed; the report's
    ``"band_sigmas"`` are the uncorrected scales whose set SNRs pick the sets :func:`shrink_residuals` shrinks
    (:data:`WIDE_L1_BAND_UNCORRECTED`; ``None`` without the correction).
    """
    adjacency = spec_args["adjacency"]
    s = allocation_shape(layout, allocation, m=m, epsilon=spec_args["epsilon"], mix=mix)
    threshold = skip_threshold(layout, allocation, reconstruction) if skip is None else skip
    wide = WIDE_L1_GAMMA != 0.0 and allocation == "auto" and max(np.atleast_1d(threshold)) > 0
    keep = measured_sets(layout, s, spec_args, m, threshold, keep_sets=keep_sets, drop_sets=drop_sets,
                         l1_gamma=WIDE_L1_GAMMA if wide and WIDE_L1_IN_LOOP else 0.0)
    band_sigmas = None
    if wide and not keep.all():     # the correction only where the public rule skips some set (WIDE_L1_GAMMA)
        if WIDE_L1_BAND_UNCORRECTED:
            s_unc = np.where(keep, s, np.inf)
            band_sigmas = sigma0_of(spec_args, residual_sensitivity(layout, s_unc, adjacency)["sensitivity"]) * s_unc
        s = s * l1_correction(layout, keep) ** WIDE_L1_GAMMA
    s = np.where(keep, s, np.inf)
    sens = residual_sensitivity(layout, s, adjacency)
    spec = PrivacySpec(epsilon=spec_args["epsilon"], delta=spec_args["delta"], adjacency=adjacency,
                       sensitivity=sens["sensitivity"], calibration=spec_args["calibration"])
    sigma0 = sigma0_of(spec_args, spec.sensitivity)
    sig = sigma0 * s
    if adjacency is Adjacency.REPLACE_ONE:
        sig[layout.res_pos[()]] = 0.0                       # m is public: the total is not measured
    return sig, spec, {**sens, "sigma0": sigma0, "skip_threshold": threshold, "band_sigmas": band_sigmas,
                       "unmeasured_sets": [A for A, k in zip(layout.residual_sets, keep, strict=True) if not k]}


# ====================================================================== private 1-way selection

#: ``(share, kappa, margin)`` of the private 1-way selection (:func:`select_one_way`; opt-in: ``release(...,
#: selection="one-way")``) of the categorical ``"auto"`` release: the share of the squared Gaussian-DP budget
#: :math:`\mu^2` spent on it (only when the public skip rule leaves some 1-way set unmeasured that could pass;
#: otherwise nothing is spent and the release is the one without it) and the bar of its test
#: (:func:`select_one_way_plan`); ``share = 0``: off.
SELECT_ONE_WAY = (0.03, 0.35, 2.0)
#: Whether the candidates the selection rejects start dropped (with their supersets) in the measurement's rule
#: (``True``), or are left to the public rule at the share ``1 - f``, which reaches them on its own path (``False``).
SELECT_DROP_REJECTED = True


def select_one_way_statistic(ds: Dataset, attrs: Sequence[int]) -> np.ndarray:
    r"""For each attribute ``i`` of ``attrs``: :math:`D_i = \lVert h_i - \tfrac{\sum h_i}{n_i}\mathbf 1\rVert_1`,
    the L1 distance of its count histogram to the uniform table of the same total (the error of the uniform
    table, the estimate of an unmeasured 1-way set). Reads the records.

    Sensitivity: replacing a record moves each histogram by :math:`e_b - e_a` (total unchanged), so each
    :math:`D_i` by at most 2; adding or removing one moves :math:`h_i` by :math:`\pm e_a` and the uniform table
    by :math:`\pm\mathbf 1/n_i`, so :math:`D_i` by at most :math:`(1 - 1/n_i) + (n_i - 1)/n_i < 2`. One record
    may change every attribute: the vector's :math:`\ell_2`-sensitivity is at most :math:`2\sqrt{|\text{attrs}|}`
    under both adjacencies (:func:`select_one_way_sensitivity`; brute-forced in the tests).
    """
    out = np.empty(len(attrs))
    for j, a in enumerate(attrs):
        h = np.asarray(ds.marginal((int(a),)), dtype=float)
        out[j] = float(np.abs(h - h.sum() / h.size).sum())
    return out


def select_one_way_sensitivity(n_attrs: int) -> float:
    r""":math:`\ell_2`-sensitivity bound :math:`2\sqrt{c}` of :func:`select_one_way_statistic` on ``c`` attributes."""
    return 2.0 * math.sqrt(n_attrs)


def select_one_way_release(ds: Dataset, attrs: Sequence[int], sigma: float, gen: np.random.Generator
                           ) -> np.ndarray:
    """The selection's Gaussian mechanism: :func:`select_one_way_statistic` plus ``N(0, sigma^2)`` per attribute (the
    only part of the selection that reads the records; audited as ``marginals[select-one-way]``)."""
    return select_one_way_statistic(ds, attrs) + float(sigma) * gaussian_noise((len(attrs),), 1.0, gen)


def select_one_way_plan(layout: ResidualLayout, s: np.ndarray, spec_args: dict[str, Any], keep0: np.ndarray,
                        candidates: Sequence[tuple[int, ...]], m: int | None, share: float, kappa: float,
                        margin: float) -> dict[str, Any] | None:
    r"""The public part of the private 1-way selection (:func:`select_one_way`): which candidates it tests, the
    statistic's noise and each candidate's bar; ``None`` when no candidate could pass (then nothing is spent).

    ``candidates``: the 1-way sets the public skip rule leaves unmeasured. The statistic
    :math:`\hat D_i = D_i + N(0, \sigma_D^2)` (:func:`select_one_way_statistic`, the uniform table's L1 error, of
    sensitivity :math:`\Delta_D = 2\sqrt{c}` on ``c`` attributes) gets :math:`\sigma_D = \Delta_D\sigma_1/\sqrt f`
    (:func:`sigma0_of`, ``f = share``); attribute ``i`` passes when
    :math:`\hat D_i \ge b_i = \kappa E_i + z\sigma_D` (``z = margin``: a lower confidence bound on :math:`D_i`),
    :math:`E_i = \sqrt{2/\pi}\,\sigma_i\sqrt{(n_i-1) n_i}` the expected L1 error of its measured table before
    projection (``sigma_i``: its noise scale were the sets ``keep0`` and every tested candidate measured with the
    share ``1 - f``). A candidate whose largest possible :math:`D_i = 2m(1 - 1/n_i)` (every record on one value)
    is below its bar is not tested (the one furthest below first, then the bars are recomputed; ``m`` public,
    else every candidate is tested). Public quantities only: sizes, workload, ``m``, epsilon, delta, the rule's choice.
    """
    if share <= 0.0 or not candidates:
        return None
    sizes = layout.sizes
    tested = list(candidates)
    while tested:
        sig_d = sigma0_of({**spec_args, "share": share}, select_one_way_sensitivity(len(tested)))
        keep = np.asarray(keep0, dtype=bool).copy()
        for A in tested:
            keep[layout.res_pos[A]] = True
        sens = residual_sensitivity(layout, np.where(keep, s, np.inf), spec_args["adjacency"])["sensitivity"]
        sig_main = sigma0_of({**spec_args, "share": 1.0 - share}, sens)
        bars = [kappa * math.sqrt(2.0 / math.pi) * sig_main * float(s[layout.res_pos[A]])
                * math.sqrt((sizes[A[0]] - 1) * sizes[A[0]]) + margin * sig_d for A in tested]
        excess = [0.0 if m is None else b - 2.0 * m * (1.0 - 1.0 / sizes[A[0]])
                  for A, b in zip(tested, bars, strict=True)]
        if max(excess) <= 0.0:
            return {"candidates": list(candidates), "tested": tested, "bars": bars, "sigma": float(sig_d),
                    "share": float(share), "kappa": float(kappa), "margin": float(margin)}
        del tested[int(np.argmax(excess))]     # one at a time: the others' bars fall as sigma_D does
    return None


def select_one_way(ds: Dataset, plan: dict[str, Any], gen: np.random.Generator
                   ) -> tuple[list[tuple[int, ...]], dict[str, Any]]:
    r"""Which of the 1-way sets the public skip rule leaves unmeasured to measure after all: a Gaussian mechanism
    with its own share of the budget (the plan: :func:`select_one_way_plan`).

    The public rule (:func:`measured_sets`) skips a 1-way set whose public set SNR is low, and the release then
    uses the uniform table for that attribute; that is right for an attribute spread over its values and badly
    wrong for a concentrated one (a binned fare or income: most records in a few of its values), and no public
    quantity tells the two apart. This step asks the data, privately: it releases the noisy uniform-table errors
    :math:`\hat D_i` of the tested attributes and selects those above their bars. The measurement then runs with
    the share ``1 - f`` (:func:`noise_scales` with the selected sets kept and the other candidates dropped).
    Privacy: the two Gaussian mechanisms (the second chosen from the first's output) compose adaptively to one
    Gaussian mechanism with :math:`\mu^2 = f\mu^2 + (1-f)\mu^2`: exactly the budget of the release without the
    step (:func:`sigma0_of`; Dong, Roth and Su 2022, Cor. 3.3). Returns the selected sets and ``info`` (the
    plan's public parts and the selection; not the statistics).
    """
    tested = plan["tested"]
    attrs = [A[0] for A in tested]
    noisy = select_one_way_release(ds, attrs, plan["sigma"], gen)
    selected = [A for A, d, b in zip(tested, noisy, plan["bars"], strict=True) if d >= b]
    info = {k: plan[k] for k in ("candidates", "tested", "share", "kappa", "margin", "sigma")}
    return selected, {**info, "selected": selected}


# ====================================================================== private pair selection

#: ``(share, kappa, margin)`` of the private pair selection (:func:`select_pairs`; opt-in: ``release(...,
#: selection="pairs")``) of the categorical ``"auto"`` release: the share ``f`` of the squared Gaussian-DP budget
#: :math:`\mu^2` spent on the pairs' dependence statistic, the factor on the expected noise norm of a measured pair
#: and the statistic's lower-confidence margin in its own noise units (:func:`select_pairs_plan`,
#: :func:`select_pairs_choose`). Chosen on synthetic shapes only (``benchmarks/select_pairs_study.py``,
#: ``benchmarks/results_marginals/adult36/``, docs/bench_peers.md): with :data:`SELECT_PAIRS_FORCE` ``False`` and
#: :data:`SELECT_PAIRS_NEED_RULE_PAIR` ``True``, 33 seen cells (11 shapes x epsilon 0.3 / 1 / 3, 2 seeds) geometric
#: mean 0.842, worst 1.030, best 0.408 against the release without the step (``study_fit3.txt``); share 0.1 lost up
#: to 4.8% where every pair matters (the share is the cost), margin 1 up to 9% on small ``m``, forcing the chosen
#: pairs up to 21% at low SNR (round 2).
SELECT_PAIRS = (0.05, 1.0, 0.0)
#: Whether the chosen pairs are always measured (``True``: ``keep_sets`` of :func:`measured_sets`) or only kept from
#: the start, the public skip rule then deciding on them at the share ``1 - f`` like on every set (``False``; the
#: unchosen candidates are dropped either way).
SELECT_PAIRS_FORCE = False
#: Whether the step runs only where the public rule, at the whole budget, measures at least one pair (``True``; where
#: it measures none the public SNR is too low for any 2-way table to beat the extrapolation and the step would only
#: spend its share) or wherever there are candidates (``False``).
SELECT_PAIRS_NEED_RULE_PAIR = True
#: The skip rule's thresholds with ``selection="pairs"`` (:func:`skip_threshold`): :data:`AUTO_SKIP_SNR` with the
#: 3-way bar at 4 x 12 = 48. In that mode the skipped sets are extrapolated from the Chow-Liu tree of the measured
#: pairs (:data:`SELECT_PAIRS_EXTRAPOLATION`), a better start than the uniform table the bar 12 was fitted against,
#: so a 3-way residual has to clear a higher public SNR to beat it. Chosen in session 39 on the 11 synthetic FIT
#: shapes of adult36 / tree38 (33 cells, paired against the bar 12: geometric mean 0.967, worst 1.011, best 0.679;
#: 24 0.978 / 1.003; 96 0.966 / 1.018; every other kappa than 1 had a worst cell above 1.03) and confirmed on the
#: 10 HELD-OUT shapes (``benchmarks/results_marginals/lead39/``, docs/bench_peers.md). Public: a function of the
#: mode the caller chose.
SELECT_PAIRS_SKIP_SNR = (2.5, 5.0, 48.0)
#: The extrapolation's prior with ``selection="pairs"`` when ``options`` names none: the Chow-Liu tree
#: (session 38's tree38 study: 0.990 / 0.987 on the FIT / HELD-OUT shapes with the selection, adult 0.956 / 0.967
#: at epsilon 0.3 / 1). Without the selection the default stays :data:`DEFAULT_EXTRAPOLATION`.
SELECT_PAIRS_EXTRAPOLATION = "tree"


def select_pairs_statistic(ds: Dataset, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    r"""For each pair ``(a, b)``: :math:`S_{ab} = \lVert T_{ab} - T_a T_b^{\mathsf T}/m\rVert_F`, the Frobenius
    distance of the pair's count table from the product of its margins (``m`` the number of records; 0 when
    ``m = 0``). Reads the records.

    Since :math:`T_{ab}` and the product share their margins and total, :math:`T_{ab} - T_aT_b^{\mathsf T}/m` lies in
    the pair's residual subspace (:math:`P_a\otimes P_b`): :math:`S_{ab}` is the norm of the part of the pair's
    interaction residual :math:`c_{ab}` that the maximum-entropy (independence) extrapolation of its 1-way tables
    misses, in the units of the measurement's noise on that residual (:math:`\sigma_{ab}\sqrt{q_{ab}}`).

    **Sensitivity** (:func:`select_pairs_sensitivity`; brute-forced in the tests). Write :math:`\hat r = T_a/m`,
    :math:`\hat c = T_b/m`, :math:`D = T_{ab} - m\hat r\hat c^{\mathsf T}`.

    *Add/remove*: adding a record ``(k, l)`` to ``m`` records gives
    :math:`D' - D = \tfrac{m}{m+1}(e_k - \hat r)(e_l - \hat c)^{\mathsf T}` (expand
    :math:`(T_a + e_k)(T_b + e_l)^{\mathsf T}/(m+1)`),
    of norm :math:`\tfrac{m}{m+1}\lVert e_k-\hat r\rVert\lVert e_l-\hat c\rVert < 2`
    (:math:`\lVert e_k - \hat r\rVert^2 \le (1-\hat r_k)^2 + (1-\hat r_k)^2 \le 2`); the supremum 2 is approached by
    ``m`` records on one cell and a record differing on both attributes.

    *Replace-one* (``m`` public): replacing ``(i, j)`` by ``(k, l)`` gives, with :math:`a = e_k - e_i`,
    :math:`b = e_l - e_j` and :math:`\hat c'` the margin after the replacement,
    :math:`D' - D = a(e_l - \hat c')^{\mathsf T} + (e_i - \hat r)b^{\mathsf T}` (write
    :math:`e_ke_l^{\mathsf T} - e_ie_j^{\mathsf T} = ae_l^{\mathsf T} + e_ib^{\mathsf T}` and expand the product's
    change), so with :math:`\alpha = 1 - \hat r_i`, :math:`\beta = \hat r_k`, :math:`\gamma = 1 - \hat c'_l`,
    :math:`\delta = \hat c'_j` (all in :math:`[0, 1 - 1/m]`: the records ``(i, j)`` before and ``(k, l)`` after are
    counted) :math:`\lVert D'-D\rVert_F^2 = 2\lVert e_l-\hat c'\rVert^2 + 2\lVert e_i - \hat r\rVert^2
    - 2(\alpha+\beta)(\gamma+\delta)`. Both norms are at most :math:`2\alpha^2`, :math:`2\gamma^2` (the mass off
    ``i`` / ``l`` on one value), so :math:`\le 4\alpha^2 + 4\gamma^2 - 2\alpha\gamma \le 6(1-1/m)^2`, reached when
    both attributes have at least 3 values (the other ``m - 1`` records on a third value of each); a 2-value
    attribute forces :math:`\beta = \alpha` (or :math:`\delta = \gamma`) and :math:`\lVert e_i - \hat r\rVert^2 =
    2\alpha^2`, so :math:`\le 4\alpha^2 + 4\gamma^2 - 4\alpha\gamma \le 4(1-1/m)^2`. A record differing on one
    attribute only moves :math:`D` by at most :math:`2(1-1/m)`. So one pair's table :math:`D` moves by at most
    :math:`w_{ab}(1-1/m)` in Frobenius norm (attained), with :math:`w_{ab} = \sqrt 6` when both attributes have >= 3
    values, else 2, and :math:`|S' - S| \le \lVert D' - D\rVert_F`. For a pair of 2-value attributes the bound is
    attained by the norm itself (:math:`D` is a multiple of one fixed matrix): ``m - 1`` records on ``y``, one on an
    ``x`` differing from ``y`` on both attributes, replaced by ``y`` (``S`` falls from :math:`2(1-1/m)` to 0). For
    wider pairs it is an upper bound on the norm's change (the worst :math:`D' - D` above leaves ``S`` unchanged;
    the brute force of the tests finds smaller changes than the bound, so the statistic's noise is conservative
    there).

    *The vector*: one record moves every pair; its :math:`\ell_2`-sensitivity is at most
    :math:`(1-1/m)\sqrt{\sum_{ab} w_{ab}^2}` under replace-one (exact on 2-value attributes: the configuration above
    with ``x`` differing from ``y`` on every attribute moves every pair by its bound at once) and exactly
    :math:`2\sqrt c` on ``c`` pairs under add/remove as a supremum over ``m`` (``m`` records on one cell and a record
    differing on every attribute added: every :math:`S` rises from 0 to :math:`2m/(m+1)`).
    """
    m = ds.m
    out = np.zeros(len(pairs))
    if m == 0:
        return out
    for j, (a, b) in enumerate(pairs):
        T = np.asarray(ds.marginal((int(a), int(b))), dtype=float)
        if a > b:                         # ds.marginal orders the axes as given; the norm does not care
            T = T.T
        out[j] = float(np.linalg.norm(T - np.outer(T.sum(1), T.sum(0)) / m))
    return out


def select_pairs_sensitivity(sizes: Sequence[int], pairs: Sequence[tuple[int, int]], adjacency: Adjacency,
                             m: int | None = None) -> float:
    r"""The :math:`\ell_2`-sensitivity of :func:`select_pairs_statistic` on ``pairs`` (proof there): under
    replace-one :math:`(1 - 1/m)\sqrt{\sum_{ab} w_{ab}^2}` with :math:`w_{ab}^2 = 6` when both attributes have at
    least 3 values, else 4 (``m`` public; ``None``: the supremum over ``m``); under add/remove :math:`2\sqrt c`."""
    if adjacency is Adjacency.ADD_REMOVE:
        return 2.0 * math.sqrt(len(pairs))
    w2 = sum(6.0 if min(sizes[a], sizes[b]) >= 3 else 4.0 for a, b in pairs)
    factor = 1.0 if m is None else max(1.0 - 1.0 / max(int(m), 1), 0.0)
    return factor * math.sqrt(w2)


def select_pairs_release(ds: Dataset, pairs: Sequence[tuple[int, int]], sigma: float, gen: np.random.Generator
                         ) -> np.ndarray:
    """The pair selection's Gaussian mechanism: :func:`select_pairs_statistic` plus ``N(0, sigma^2)`` per pair (the
    only part of the pair selection that reads the records; audited as ``marginals[select-pairs]``)."""
    return select_pairs_statistic(ds, pairs) + float(sigma) * gaussian_noise((len(pairs),), 1.0, gen)


def select_pairs_plan(layout: ResidualLayout, s: np.ndarray, spec_args: dict[str, Any], keep0: np.ndarray,
                      m: int | None, share: float, kappa: float, margin: float) -> dict[str, Any] | None:
    r"""The public part of the private pair selection (:func:`select_pairs`); ``None`` when there is nothing to
    select (then nothing is spent and the release is the one without the step).

    ``keep0``: the public rule's measured family (:func:`measured_sets` at the whole budget). Candidates: every pair
    of the workload's closure whose two 1-way sets the rule measures (it may have skipped the pair itself: with
    fewer pairs measured each gets more budget). The statistic (:func:`select_pairs_statistic`) gets
    :math:`\sigma_S = \Delta_S\sigma_1/\sqrt f` (:func:`sigma0_of`, ``f = share``, :math:`\Delta_S`
    :func:`select_pairs_sensitivity`). The plan also holds, per candidate, the unit bar :math:`u_{ab} = \kappa
    s_{ab}\sqrt{q_{ab}}` (``s`` the allocation's shape, :math:`q_{ab} = (n_a-1)(n_b-1)`: the expected noise norm
    of a measured pair is :math:`\sigma_0 s_{ab}\sqrt{q_{ab}}`) and the measured 1-way family. Public quantities
    only: sizes, workload, ``m``, epsilon, delta, the rule's choice.
    """
    if share <= 0.0:
        return None
    sets = layout.residual_sets
    sizes = layout.sizes
    if SELECT_PAIRS_NEED_RULE_PAIR and not any(len(A) == 2 and k for A, k in zip(sets, keep0, strict=True)):
        return None
    ones = {A[0] for A, k in zip(sets, keep0, strict=True) if len(A) == 1 and k}
    cands = [A for A in sets if len(A) == 2 and A[0] in ones and A[1] in ones]
    if not cands:
        return None
    sig_s = sigma0_of({**spec_args, "share": share},
                      select_pairs_sensitivity(sizes, cands, spec_args["adjacency"], m))
    unit = [kappa * float(s[layout.res_pos[A]]) * math.sqrt((sizes[A[0]] - 1) * (sizes[A[1]] - 1)) for A in cands]
    base = np.array([len(A) <= 1 and (not A or A[0] in ones) for A in sets])
    return {"candidates": cands, "sigma": float(sig_s), "unit": unit, "base": base, "share": float(share),
            "kappa": float(kappa), "margin": float(margin)}


def select_pairs_choose(layout: ResidualLayout, s: np.ndarray, spec_args: dict[str, Any], plan: dict[str, Any],
                        noisy: np.ndarray) -> list[tuple[int, ...]]:
    r"""Which candidate pairs to measure, from the released noisy statistics (post-processing).

    Pair ``A`` is worth measuring when its lower confidence bound :math:`\hat S_A - z\sigma_S` (``z = margin``)
    exceeds :math:`\kappa` times its expected noise norm :math:`\sigma_0(F) s_A\sqrt{q_A}`, where
    :math:`\sigma_0(F)` is the measurement's scale at the share ``1 - f`` when the family ``F`` (the measured 1-way
    sets and the chosen pairs) is measured: more pairs, more noise on each. With :math:`g_A = (\hat S_A -
    z\sigma_S)/u_A` sorted decreasingly and :math:`F_K` the 1-way sets plus the first ``K`` pairs,
    :math:`\sigma_0(F_K)` grows with ``K``, so the ``K`` with :math:`g_{(K)} \ge \sigma_0(F_K)` form a prefix; the
    largest one is found by bisection (exact sensitivity, :func:`residual_sensitivity`). Reads only the noisy
    statistics and public quantities.
    """
    cands = plan["candidates"]
    g = (np.asarray(noisy, dtype=float) - plan["margin"] * plan["sigma"]) / np.asarray(plan["unit"])
    order = [int(i) for i in np.argsort(-g, kind="stable")]
    main_args = {**spec_args, "share": 1.0 - plan["share"]}

    def sigma0(K: int) -> float:
        keep = plan["base"].copy()
        for i in order[:K]:
            keep[layout.res_pos[cands[i]]] = True
        sens = residual_sensitivity(layout, np.where(keep, s, np.inf), spec_args["adjacency"])["sensitivity"]
        return sigma0_of(main_args, sens)

    lo, hi = 0, int(np.sum(g > 0))              # g_(K) >= sigma0(K) holds at K = lo, and fails beyond hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if g[order[mid - 1]] >= sigma0(mid):
            lo = mid
        else:
            hi = mid - 1
    return sorted(cands[i] for i in order[:lo])


def select_pairs(ds: Dataset, layout: ResidualLayout, s: np.ndarray, spec_args: dict[str, Any],
                 plan: dict[str, Any], gen: np.random.Generator) -> tuple[list[tuple[int, ...]], dict[str, Any]]:
    r"""Which attribute pairs the categorical release measures: a Gaussian mechanism on the pairs' dependence with
    its own share of the budget (the plan: :func:`select_pairs_plan`; the choice: :func:`select_pairs_choose`).

    The public skip rule (:func:`measured_sets`) measures a pair by its public set SNR alone, so on data with many
    wide attributes (adult: 15 attributes, 2-42 values) it spends the budget on every pair alike, most of them
    nearly independent (their tables are the product of their margins, which the extrapolation gives for free),
    and has none left for the strongly dependent ones and their triples. This step asks the data, privately: it
    releases the noisy distances from independence :math:`\hat S_A` of the candidate pairs, measures the pairs
    worth their noise and drops the others (with their supersets; their tables are extrapolated by maximum entropy,
    :func:`_reconstruct_skipped`); the measurement then runs with the share ``1 - f`` on the smaller family, where
    the public rule may keep the triples whose three pairs were chosen. Privacy: the two Gaussian mechanisms (the
    second chosen from the first's output) compose adaptively to one Gaussian mechanism with :math:`\mu^2 = f\mu^2 +
    (1-f)\mu^2`, the budget of the release without the step (:func:`sigma0_of`; Dong, Roth and Su 2022,
    Cor. 3.3). Returns the chosen pairs and ``info`` (the plan's public parts and the choice; never the statistics).
    """
    noisy = select_pairs_release(ds, plan["candidates"], plan["sigma"], gen)
    chosen = select_pairs_choose(layout, s, spec_args, plan, noisy)
    info = {k: plan[k] for k in ("candidates", "share", "kappa", "margin", "sigma")}
    return chosen, {**info, "selected": chosen}


# ====================================================================== measurement


@dataclass(frozen=True)
class Measurement:
    """The noisy residuals (already private) and what produced them (public)."""

    layout: ResidualLayout
    residuals: np.ndarray          # flat residual vector (noisy); the empty set's entry is the total
    sigmas: np.ndarray             # sigma_A per closure set (0 for the public total, inf for a skipped set)
    spec: PrivacySpec
    allocation: str
    m_public: int | None           # m under replace-one, None under add/remove

    @property
    def weights(self) -> np.ndarray:
        """``1 / sigma_A^2`` (the measurement metric); 0 for the unmeasured/public total and for a skipped set
        (``sigma_A = inf``, :func:`measured_sets`: reconstructed by :func:`_reconstruct_skipped`)."""
        w = np.zeros_like(self.sigmas)
        pos = (self.sigmas > 0) & np.isfinite(self.sigmas)
        w[pos] = 1.0 / self.sigmas[pos] ** 2
        return w


def measure(ds: Dataset, layout: ResidualLayout, sigmas: np.ndarray, spec: PrivacySpec, allocation: str,
            gen: np.random.Generator) -> Measurement:
    """Residuals of the records plus noise (the only step that reads the records).

    Tables of the workload are counted from the records (``Dataset.marginal``), residuals computed
    from them; noise ``sigma_A * P z`` with ``z`` standard normal (isotropic on the residual subspace).
    A skipped set (``sigma_A = inf``, :func:`measured_sets`) releases nothing: its residual is set to 0
    (its ``z`` is still drawn, so the measured sets get the same standard normals as without skipping).
    """
    tabs = [ds.marginal(w) for w in layout.workload]
    r = layout.residuals_of_tables(tabs)
    del tabs
    z = gaussian_noise((layout.res_size,), 1.0, gen)
    layout.center(z)
    skipped = ~np.isfinite(sigmas)
    r += layout.expand(np.where(skipped, 0.0, sigmas)) * z
    if skipped.any():
        r[layout.expand(skipped.astype(float)) > 0] = 0.0
    m_pub = ds.m if spec.adjacency is Adjacency.REPLACE_ONE else None
    if m_pub is not None:
        r[layout.empty_pos] = float(m_pub)
    else:
        # the noisy total is the empty residual (z's entry for it is untouched by centering)
        r[layout.empty_pos] = max(float(r[layout.empty_pos]), 1.0)
    return Measurement(layout, r, sigmas, spec, allocation, m_pub)


def shrink_residuals(meas: Measurement, m: int, c: float | Sequence[float],
                     bands: Sequence[float], *, band_sigmas: np.ndarray | None = None
                     ) -> tuple[Measurement, list[tuple[int, ...]]]:
    r"""Positive-part James-Stein shrinkage of the low-SNR measured residuals, per set and per order
    (post-processing; the categorical ``"auto"`` skip rule's, :data:`ONE_WAY_SHRINK`,
    :data:`RESIDUAL_SHRINK_BANDS`, docs/bench_allocation.md).

    ``bands[k-1]`` is the public set SNR (:func:`set_snr`) below which a measured set of order ``k`` is shrunk (the
    last entry for every higher order; 0: that order is left alone). A measured set :math:`A` (``0 < sigma_A <
    inf``) below its band with :math:`q_A = \prod_{i\in A}(n_i - 1) \ge 3` has the noisy residual
    :math:`y_A = c_A + \sigma_A P_A z` (:func:`measure`; :math:`P_A = \otimes_i (I - 11^T/n_i)` is an orthogonal
    projector, so in an orthonormal basis of the :math:`q_A`-dimensional residual subspace the noise is exactly
    :math:`\sigma_A^2 I_{q_A}`, white, and the ambient norm :math:`\|y_A\|` is that basis' norm: no whitening
    needed). It becomes

    .. math:: \max\Bigl(0,\ 1 - c\,\frac{(q_A - 2)\,\sigma_A^2}{\|y_A\|^2}\Bigr)\, y_A,

    the positive-part James-Stein estimator toward 0 (James and Stein 1961; positive part: Baranchik 1964,
    Efron and Morris 1973), which for :math:`0 < c < 2` and :math:`q_A \ge 3` dominates :math:`y_A` in the expected
    squared error :math:`E\|\hat c_A - c_A\|^2` (its risk is :math:`q_A - c(2-c)(q_A-2)^2 E\|y_A\|^{-2}`
    in units of :math:`\sigma_A^2`, smallest at ``c = 1``). ``c`` is a number or one constant per order like
    ``bands`` (the last entry for every higher order). Toward 0 means toward the table the lower-order residuals
    imply alone: for a 1-way set the uniform table, for a set of order >= 2 the additive (ANOVA) table
    :math:`\sum_{B \subsetneq A}` of its subsets' residual contributions (which, unlike the maximum-entropy table the
    release uses for skipped sets, may have negative cells: the reconstruction's non-negativity follows). For
    1-way sets the study offset ``o`` = :data:`ONE_WAY_SHRINK_OFFSET` (default 2) replaces ``q - 2`` by ``q - o``
    (and ``q >= 3`` by ``q > o``).
    Only the released noisy values and the public noise scales enter, and which sets are shrunk depends on the
    public set SNRs only (sizes, ``m``, the noise scales): post-processing, the privacy and the noise scales are
    unchanged. Returns the new measurement and the sets shrunk (closure order).
    """
    layout = meas.layout
    snr = set_snr(layout, meas.sigmas if band_sigmas is None else band_sigmas, m)
    r = meas.residuals.copy()
    done: list[tuple[int, ...]] = []
    bands = [float(b) for b in bands]
    cs = [float(c)] if np.ndim(c) == 0 else [float(x) for x in c]
    for i, A in enumerate(layout.residual_sets):
        if not A:
            continue
        kappa = _shrink_kappa(layout, A, float(snr[i]), bands[min(len(A), len(bands)) - 1],
                              cs[min(len(A), len(cs)) - 1], float(meas.sigmas[i]))
        if kappa is None:
            continue
        y = layout.residual(r, A)
        y *= james_stein_factor(y, kappa, float(meas.sigmas[i]))
        done.append(A)
    return Measurement(layout, r, meas.sigmas, meas.spec, meas.allocation, meas.m_public), done


def _shrink_kappa(layout: ResidualLayout, A: tuple[int, ...], snr: float, band: float, c: float,
                  sigma: float) -> float | None:
    """``c (q_A - o)`` of :func:`shrink_residuals` for the measured set ``A`` at public set SNR ``snr`` below
    ``band``; ``None`` where the rule leaves ``A`` alone (off, unmeasured, above the band, ``q_A`` too small). The
    offset ``o`` is 2 (James-Stein), for 1-way sets :data:`ONE_WAY_SHRINK_OFFSET` and the session-34 study knobs."""
    if band <= 0 or not (0.0 < sigma < np.inf) or snr >= band:
        return None
    q = math.prod(layout.sizes[a] - 1 for a in A)
    off = ONE_WAY_SHRINK_OFFSET if len(A) == 1 else 2
    if len(A) == 1 and ((ONE_WAY_SHRINK_SMALL and q <= 2) or snr < ONE_WAY_STRONG_BELOW):
        off = 0                                  # the hybrid / the strong band (study knobs): factor with q
    if q <= max(off, 0) or q < 1:
        return None
    return c * (q - off)


def james_stein_factor(y: np.ndarray, kappa: float, sigma: float) -> float:
    r"""The positive-part factor :math:`\max(0, 1 - \kappa\sigma^2/\|y\|^2)` (0 for ``y = 0``)."""
    ss = float(np.sum(y * y))
    return max(0.0, 1.0 - kappa * sigma**2 / ss) if ss > 0 else 0.0


def shrink_one_way(meas: Measurement, m: int, c: float, band: float) -> tuple[Measurement, list[tuple[int, ...]]]:
    r"""Positive-part James-Stein shrinkage of the low-SNR measured 1-way residuals (session 31): the 1-way part of
    :func:`shrink_residuals` (``bands = (band, 0)``).

    For a measured 1-way set :math:`A=\{i\}` with public set SNR (:func:`set_snr`) below ``band`` and
    :math:`q = n_i - 1 \ge 3` (``q > o`` for the study offset ``o`` = :data:`ONE_WAY_SHRINK_OFFSET`), the noisy
    residual becomes :math:`\max(0, 1 - c (q-2)\sigma_A^2/\|y_A\|^2)\, y_A` (James and Stein 1961; Baranchik
    1964): the attribute's table is pulled toward the uniform one when the measurement cannot tell it from noise.
    Returns the new measurement and the sets shrunk.
    """
    return shrink_residuals(meas, m, c, (band, 0.0))


#: Study knob (session 34, lead; NOT adopted, default 0 = off): draws of the parametric bootstrap that decides, for
#: every 1-way set :func:`shrink_residuals` shrank, whether its James-Stein table or its raw measured table is released
#: (:func:`select_one_way_estimate`). A concentrated attribute (most records on a few values) is better estimated in
#: L1 by the non-negative projection of its raw measurement, which acts like soft thresholding, than by a factor that
#: pulls every cell toward the uniform table; a flat or spread one the other way round. With 40 draws: titanic at
#: epsilon 0.3 0.961 [0.947, 0.975] (Fare's raw table, 5 seeds; identical at the other epsilons, and on adult, where
#: no 1-way set is shrunk), but the seen synthetic shapes 1.0010 over 135 cells (61 changed, worst 1.013 [1.002,
#: 1.024]): the rule written before the fit asked for a geometric mean below 1 (``benchmarks/results_catrule/lead34/``,
#: docs/bench_allocation.md).
ONE_WAY_L1_DRAWS = 0


def select_one_way_estimate(raw: Measurement, shrunk: Measurement, m: int, sets: Sequence[tuple[int, ...]],
                            c: float, gen: np.random.Generator, draws: int = 40
                            ) -> tuple[Measurement, list[tuple[int, ...]]]:
    r"""For every 1-way set of ``sets`` (shrunk by :func:`shrink_residuals` with constant ``c``), keep the
    James-Stein residual or put the raw one back, whichever a parametric bootstrap says has the smaller L1 error
    of the released table.

    With the measured residual :math:`y` (counts minus :math:`m/n`, noise :math:`\sigma P z`, :func:`measure`),
    the two tables are :math:`\hat x_{JS} = \Pi(m/n + f(y) y)` and :math:`\hat x_{raw} = \Pi(m/n + y)`, :math:`\Pi`
    the projection onto :math:`\{x \ge 0, \sum x = m\}` (what the reconstruction does to a lone 1-way table) and
    :math:`f` the factor of :func:`shrink_residuals`. Taking :math:`\tilde x = \hat x_{JS}` as the pilot truth,
    ``draws`` fresh noise vectors :math:`y^* = \tilde x - m/n + \sigma P z^*` give the bootstrap L1 risks
    :math:`\frac1B\sum \|\hat x(y^*) - \tilde x\|_1` of both rules (Efron 1979; the parametric bootstrap of an
    estimator's risk); the smaller one wins (ties keep the factor). Why L1 and not Stein's unbiased risk estimate:
    the issue's error is L1, and on a spread attribute with one large cell (titanic's Age) the squared-error risk
    prefers the raw table while the L1 risk prefers the shrunk one (``benchmarks/results_catrule/lead34/``).
    Post-processing: the noisy residuals, the public noise scales and ``gen`` (a stream of its own, so the
    measurement's normals are untouched). Returns the measurement and the 1-way sets that stay shrunk.
    """
    from sosproj.sdp.simplex import project_simplex

    layout = raw.layout
    snr = set_snr(layout, raw.sigmas, m)
    r = shrunk.residuals.copy()
    kept: list[tuple[int, ...]] = []
    for A in sets:
        if len(A) != 1:
            continue
        i = layout.res_pos[A]
        sig = float(raw.sigmas[i])
        kappa = _shrink_kappa(layout, A, float(snr[i]), math.inf, c, sig)
        if kappa is None:                             # pragma: no cover - every shrunk set has one
            continue
        y = np.asarray(layout.residual(raw.residuals, A), dtype=float)
        n = y.size
        pilot = project_simplex(m / n + james_stein_factor(y, kappa, sig) * y, float(m))
        z = gen.standard_normal((draws, n))
        loss_js = loss_raw = 0.0
        for zb in z:
            yb = pilot - m / n + sig * (zb - zb.mean())
            loss_raw += float(np.abs(project_simplex(m / n + yb, float(m)) - pilot).sum())
            loss_js += float(np.abs(project_simplex(m / n + james_stein_factor(yb, kappa, sig) * yb, float(m))
                                    - pilot).sum())
        if loss_js <= loss_raw:
            kept.append(A)
        else:
            layout.residual(r, A)[...] = y
    return Measurement(layout, r, shrunk.sigmas, shrunk.spec, shrunk.allocation, shrunk.m_public), kept


# ====================================================================== reconstructions


def _blue(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    """ResidualPlanner's best linear unbiased reconstruction: each residual measured once, so BLUE = it."""
    return meas.residuals.copy(), {"solver": None}


def _projector(meas: Measurement, psd: bool, options: dict[str, Any],
               weights: np.ndarray | None = None, *, dual: bool = False) -> tuple[np.ndarray, dict[str, Any]]:
    """The :class:`~sosproj.sdp.marginal_admm.MarginalProjector` projection in the metric ``weights``
    (per closure set; default the measurement's, ``1 / sigma_A^2``).

    ``dual=True`` (LNN only, ``psd=False``) solves it by
    :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual` (same problem, same ``theta <= tol``
    test plus relative complementarity, duality gap in ``info``), except where ``options`` sets the
    ADMM's penalty ``rho`` or a non-empty set has zero weight (the dual needs ``w_A > 0``): then the
    ADMM of :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve`. The choice reads the options
    and the metric (noise scales, layout) only: public.
    """
    from sosproj.sdp.marginal_admm import MarginalProjector

    opts = dict(options)
    on_fail = opts.pop("on_fail", "warn")
    w = meas.weights if weights is None else np.asarray(weights, dtype=float)
    proj = MarginalProjector(meas.layout, w, psd=psd, **opts)
    if dual and not psd and "rho" not in options:
        nonempty = np.ones(len(meas.layout.residual_sets), dtype=bool)
        nonempty[meas.layout.res_pos[()]] = False
        if np.all(w[nonempty] > 0):
            return proj.solve_dual(meas.residuals, on_fail=on_fail)
    return proj.solve(meas.residuals, on_fail=on_fail)


def _lnn(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    """Projection in the measurement metric onto consistent, locally non-negative tables (the ADMM of
    :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve`; ``"auto"`` solves the same problem by
    :func:`_lnn_dual`)."""
    return _projector(meas, False, options)


def _lnn_dual(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    r"""The LNN projection of :func:`_lnn` (categorical ``"auto"`` without the PSD step), solved on its dual.

    :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual`: accelerated projected gradient on the
    cell multipliers, step :math:`1 / \max_A (d_A / w_A)`, the ADMM's stopping test ``theta <= tol`` plus
    relative complementarity, duality gap in ``info``. Measured on adult (all 3-way,
    ``benchmarks/results_marginals/adult_v9/``): the measured family at epsilon 1 in 240-280 iterations
    (2.1 s CPU) against the ADMM's 490-855 (6.8 s on seed 0), at a lower objective; the full family at
    epsilon 10 converged in 720-890 iterations (27-44 s) where the ADMM stopped unconverged at its 5,000 cap
    (~230 s). The ADMM of
    :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve` is used when ``options`` sets its penalty
    ``rho`` or a non-empty set has zero weight (the dual needs ``w_A > 0``). The choice reads the options
    and the noise scales only (public).
    """
    return _projector(meas, False, options, dual=True)


def table_metric(layout: ResidualLayout) -> np.ndarray:
    r"""The metric of the workload's cells, per closure set: ``d_A`` (0 for the empty set).

    For residuals ``e`` the workload's sum of squared cell errors is
    :math:`\|Be\|^2 = \sum_A d_A \|e_A\|^2` (``B^T B`` is diagonal on the residual subspace,
    :attr:`~sosproj.data.residuals.ResidualLayout.normal_diag_sets`), so a projection onto a convex
    set that contains the true tables, in this metric, never increases the RMSE per cell. It depends
    on the layout only (public). Equal-noise tables measure in exactly this metric.

    >>> from sosproj.data.residuals import ResidualLayout, all_k_way
    >>> lay = ResidualLayout((2, 2, 2), all_k_way(3, 2))
    >>> [float(x) for x in table_metric(lay)]            # sets (), (0,), (1,), (2,), then pairs
    [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    d = np.array(layout.normal_diag_sets, dtype=float)
    d[layout.res_pos[()]] = 0.0
    return d


#: Largest moment-matrix order of the Boolean-cube step of ``reconstruction="auto"`` on binary data.
CUBE_MAX_ORDER = 700


def cube_degree(n: int, k: int) -> int | None:
    """Degree of the cube step of ``"auto"`` on ``n`` binary attributes (``None``: moment matrix too large)."""
    from sosproj.mechanisms.sizes import default_degree

    for deg in (default_degree("tables", k, n), 2 * math.ceil(k / 2)):
        if sum(math.comb(n, j) for j in range(min(deg // 2, n) + 1)) <= CUBE_MAX_ORDER:
            return deg
    return None


#: Largest moment-matrix order of the two-block degree-4 cube step (:func:`block_cube_basis`) of
#: ``reconstruction="auto"`` on binary data without the full cube step: n = 64 (order 1,057) fits.
BLOCK_CUBE_MAX_ORDER = 1100
#: Public SNR (:func:`public_snr`) below which that step runs (above it, the table-metric LNN
#: projection alone). Measured on planted binary data at n = 64 (docs/bench_allocation.md, "Wide binary
#: data", seed 0): at SNR 0.37, 1.2, 3.7 and 12.2 (epsilon 0.03-1) the step's L1 error was 0.37x, 0.29x,
#: 0.30x and 0.44x that of RP + truncate-and-rescale (0.37x the table-metric LNN alone at SNR 3.7), in
#: 35-40 CPU seconds per release (237-263 cube iterations of order 1,057, 26-30 s; the LNN step after it
#: 0.7 s; seed 0, epsilon 1 / 0.3, benchmarks/results_marginals/lnnc/). Above 15 it was not measured, and the
#: tighter tolerance there (:func:`default_tolerance`) lets the cube iterations grow, so the step stops.
BLOCK_CUBE_MAX_SNR = 15.0


def block_cube_basis(n: int, blocks: int = 2) -> np.ndarray:
    r"""Positions (:class:`~sosproj.data.contingency.SubsetIndex` order, subsets of size <= 2) of the
    empty set, the singletons and the pairs inside one of ``blocks`` contiguous attribute blocks.

    With two blocks every triple of attributes holds a pair inside one block, so every moment of
    order <= 3 is an entry of the principal submatrix of the degree-4 moment matrix that this basis
    indexes (``f_{ijk} = M[{i}, {j, k}]``): a weaker relaxation than the full degree 4 (order
    ``1 + n + sum_b C(n_b, 2)``: 1,057 instead of 2,081 at ``n = 64``, an eighth of the
    eigendecomposition's cost). Public (sizes only).

    >>> block_cube_basis(4).tolist()             # {}, {0}..{3}, {0,1}, {2,3}
    [0, 1, 2, 3, 4, 5, 10]
    """
    from sosproj.data.contingency import SubsetIndex

    mem = SubsetIndex(n, min(2, n)).members
    size = (mem >= 0).sum(axis=1)
    blk = np.where(mem >= 0, mem * blocks // n, -1)
    keep = (size <= 1) | ((size == 2) & (blk[:, 0] == blk[:, -1] if mem.shape[1] > 1 else False))
    return np.flatnonzero(keep)


def block_cube_order(n: int, blocks: int = 2) -> int:
    """Order of the moment matrix of :func:`block_cube_basis` (``1 + n + sum_b C(n_b, 2)``)."""
    sizes = np.bincount(np.arange(n) * blocks // n, minlength=blocks)
    return 1 + n + sum(math.comb(int(b), 2) for b in sizes)


def binary_fourier_form(meas: Measurement, weights: np.ndarray | None = None
                        ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, float]:
    r"""Binary data: the measurement objective written diagonally in Fourier moments (one home for the rule).

    A binary residual set ``A`` holds one number: its centred table is
    :math:`c_A = 2^{-|A|} m f_A \, s_A` with :math:`s_A(b) = (-1)^{|b|}` and the Fourier moment
    :math:`f_A = \mathbb E[(-1)^{\sum_{i \in A} x_i}]`, so :math:`w_A \lVert c_A - y_A\rVert^2 =
    a_A (f_A - g_A)^2` with :math:`g_A = 2^{|A|} y_A(0) / m` and :math:`a_A = m^2 w_A / 2^{|A|}` (``w_A`` the
    measurement's :math:`1/\sigma_A^2`, or ``weights``). Returns ``(index, pos, g, a, m)``: the
    :class:`~sosproj.data.contingency.SubsetIndex` of the closure, the index position of every residual set,
    ``g`` and ``a`` over the index (``g_\emptyset = 1``, ``a = 0`` for the public total and unmeasured sets), and
    the total ``m`` (the empty set's residual).
    """
    from sosproj.data.contingency import SubsetIndex

    lay = meas.layout
    n = len(lay.sizes)
    k = max(len(A) for A in lay.residual_sets)
    w = meas.weights if weights is None else np.asarray(weights, dtype=float)
    m = float(meas.residuals[lay.empty_pos])
    index = SubsetIndex(n, k)
    sets = list(lay.residual_sets)
    rows = np.full((len(sets), max(k, 1)), -1, dtype=np.int64)
    for i, A in enumerate(sets):
        rows[i, :len(A)] = A
    pos = index.lookup(rows)
    g = np.zeros(len(index))
    a = np.zeros(len(index))
    for i, A in enumerate(sets):
        c0 = float(np.ravel(lay.residual(meas.residuals, A))[0])
        g[pos[i]] = c0 * 2.0 ** len(A) / m
        if A and meas.sigmas[i] > 0:   # the measurement metric written as before (bit-identical releases)
            a[pos[i]] = (m * m / (2.0 ** len(A) * meas.sigmas[i] ** 2) if weights is None
                         else m * m * w[i] / 2.0 ** len(A))
    g[0] = 1.0
    return index, pos, g, a, m


def residuals_from_fourier(layout: ResidualLayout, pos: np.ndarray, f: np.ndarray, m: float) -> np.ndarray:
    r"""The residual vector of binary Fourier moments ``f`` (the inverse of :func:`binary_fourier_form`'s ``g``):
    :math:`c_A = 2^{-|A|} m f_A s_A`, the empty set's entry ``m``."""
    r = np.zeros(layout.res_size)
    r[layout.empty_pos] = m
    for i, A in enumerate(layout.residual_sets):
        j = len(A)
        if j == 0:
            continue
        signs = (-1.0) ** np.indices((2,) * j).sum(axis=0)
        layout.residual(r, A)[...] = signs * (2.0 ** -j) * m * f[pos[i]]
    return r


#: the exact marginal-polytope projection (``reconstruction="joint"``) keeps a distribution over all ``2^n``
#: points: refused above this many binary attributes (six vectors of ``2^n`` doubles: 50 MB at ``n = 20``)
JOINT_MAX_N = 20

#: ``reconstruction="auto"`` of binary data takes the exact polytope (:func:`_joint`) up to this many attributes
#: (a function of the public domain only): issue 14, session 36 (``docs/bench_peers.md``, "The exact polytope")
JOINT_AUTO_MAX_N = 16

#: column-generation rounds of the exact polytope projection before it reports a failure (each round: a
#: restricted non-negative least squares on a few thousand points of the cube;
#: :func:`~sosproj.sdp.polytope_fista.polytope_fourier_least_squares`)
JOINT_MAX_ITER = 200


def check_joint(layout: ResidualLayout) -> None:
    """Refuse ``reconstruction="joint"`` from the public layout alone (before any record is read): binary data
    with at most :data:`JOINT_MAX_N` attributes; the refusal states the memory the ``2^n`` points would take."""
    n = len(layout.sizes)
    if any(s != 2 for s in layout.sizes):
        raise InvalidParameterError("reconstruction='joint' is built for binary data (every attribute of size 2)")
    if n > JOINT_MAX_N:
        raise InvalidParameterError(
            f"reconstruction='joint' keeps a distribution over all 2^{n} points (about "
            f"{6 * 8 * 2.0 ** n / 2 ** 30:.3g} GiB); it is refused above {JOINT_MAX_N} attributes: use 'auto'")


def _joint(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    r"""``reconstruction="joint"``: binary data, the projection in the measurement metric onto the EXACT marginal
    polytope (a distribution ``p`` over all ``2^n`` points; its marginals are consistent, non-negative and sum to
    ``m`` by construction: the Boolean-cube SoS hierarchy at full degree, the smallest of its sets).

    .. math:: \min_{p \in \Delta_{2^n}} \sum_A a_A (\hat p_A - g_A)^2

    in the Fourier form of :func:`binary_fourier_form`, solved by
    :func:`~sosproj.sdp.polytope_fista.polytope_fourier_least_squares` (a FISTA warm-up, then column generation
    with exact restricted non-negative least squares; stop at a Frank-Wolfe gap, an upper bound on the
    suboptimality, of at most ``tol`` times the objective). This is the estimator Private-PGM fits
    when its model is the full domain. Exponential in ``n``: refused above :data:`JOINT_MAX_N` attributes; every
    residual set must be measured (an unmeasured set's moments are not determined by the least squares).
    """
    from sosproj.policy import apply_on_fail, check_on_fail
    from sosproj.sdp.marginal_admm import MarginalProjector
    from sosproj.sdp.polytope_fista import polytope_fourier_least_squares

    on_fail = check_on_fail(options.get("on_fail", "warn"))
    lay = meas.layout
    n = len(lay.sizes)
    check_joint(lay)
    if not np.isfinite(meas.sigmas).all():
        raise InvalidParameterError("reconstruction='joint' needs every residual set measured; this measurement "
                                    "skips some (use allocation='rp' or 'equal-tables', or reconstruction='auto')")
    index, pos, g, a, m = binary_fourier_form(meas)
    tol = float(options.get("tol", 1e-3))
    fit = polytope_fourier_least_squares(a, g, index, tol=tol, method="column-generation",
                                         max_iter=int(options.get("max_iter", JOINT_MAX_ITER)), on_fail="return")
    r = residuals_from_fourier(lay, pos, fit.fourier, m)
    # the polytope's tables are non-negative in exact arithmetic; the way back through the Fourier moments and the
    # residuals leaves round-off (-3e-15 counts seen): the smallest mix with the uniform tables removes it
    r, theta = MarginalProjector(lay, table_metric(lay)).make_nonnegative(r)
    info = {"solver": "polytope-column-generation", "iterations": fit.iterations, "converged": bool(fit.converged),
            "objective": fit.objective, "frank_wolfe_gap": fit.gap, "tol": tol, "joint_cells": 1 << n,
            "roundoff_theta": theta}
    apply_on_fail(bool(fit.converged), on_fail,
                  f"the exact polytope projection did not reach a relative Frank-Wolfe gap of {tol:g} in "
                  f"{fit.iterations} iterations (gap {fit.gap:.3g}, objective {fit.objective:.6g}); raise "
                  "options['max_iter'] or options['tol']", {"value": r, "info": info})
    return r, info


def _cube_then_lnn(meas: Measurement, options: dict[str, Any], *, degree: int | None = None,
                   weights: np.ndarray | None = None, basis: np.ndarray | None = None
                   ) -> tuple[np.ndarray, dict[str, Any]] | None:
    """Binary data: the Boolean-cube SoS projection, then the LNN projection, both in one metric.

    The metric is ``weights`` per closure set (default the measurement's, ``w_A = 1 / sigma_A^2``;
    :func:`table_metric` for the cells' sum of squares). In Fourier moments
    ``f_A = c_A[0] 2^{|A|} / m`` it is diagonal with weights ``m^2 w_A / 2^{|A|}``;
    :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector` projects onto the degree-``d`` cube
    relaxation (``d = degree``, default :func:`cube_degree`), and the result is projected (same
    metric) onto locally non-negative tables, which the cube degree does not imply for every
    workload cell. That LNN step is solved on its dual (``_projector(..., dual=True)``:
    :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual`, same ``theta <= tol`` test plus
    relative complementarity, duality gap in ``info``; an input that is already non-negative is returned
    as is, certified by zero multipliers): on the captured nltcs inputs (all 3-way, 5 seeds) it took
    0.57x / 0.26x / 0.08x the ADMM's CPU at epsilon 1 / 3 / 10 (2.05x at 0.3, ~0.012 s) and reached a
    lower objective on all 20 (``benchmarks/results_peers/runtime_v13/``). The ADMM is kept when
    ``options`` sets its penalty ``rho``. ``basis`` restricts the moment matrix to a principal submatrix (e.g.
    :func:`block_cube_basis`; see :class:`~sosproj.sdp.cube_tables_admm.CubeTablesProjector`).
    ``None`` when the moment matrix would be too large (no ``degree`` given and :func:`cube_degree`
    is ``None``).
    """
    from sosproj.data.contingency import SubsetIndex
    from sosproj.sdp.cube_tables_admm import CubeTablesProjector

    lay = meas.layout
    n = len(lay.sizes)
    k = max(len(A) for A in lay.residual_sets)
    deg = cube_degree(n, k) if degree is None else int(degree)
    if deg is None:
        return None
    w = meas.weights if weights is None else np.asarray(weights, dtype=float)
    index, pos, g, a, m = binary_fourier_form(meas, weights)
    tol = float(options.get("tol", 1e-3))
    # below degree k the relaxation constrains the moments of order <= deg only (a prefix of the
    # index, which lists subsets by size); the higher ones are left to the LNN step
    low = len(index) if deg >= k else len(SubsetIndex(n, min(deg, n)))
    # the certified-distance stop reads the noise scale from the measurement metric: only there (the
    # measurement's own weights passed explicitly are that metric too); the cumulant start likewise
    own = weights is None or (basis is None and np.array_equal(w, meas.weights))
    proj = CubeTablesProjector(n, deg, a[:low], tol=cube_tolerance(tol), max_iter=int(options.get("max_iter", 1000)),
                               basis=basis, gap_tol=CUBE_GAP_TOL if own else None,
                               init=CUBE_INIT if own else "zero",
                               anderson=CUBE_ANDERSON if own and _cube_order(n, deg, basis) <= CUBE_ANDERSON_MAX_ORDER
                               else 0)
    f_cube, cinfo = proj.solve(g[:low], warm_start=False, on_fail="return")
    f = g.copy()
    f[:min(low, f_cube.size)] = f_cube[:low]
    r = residuals_from_fourier(lay, pos, f, m)
    cube_meas = Measurement(lay, r, meas.sigmas, meas.spec, meas.allocation, meas.m_public)
    r2, info = _projector(cube_meas, False, options, weights, dual=True)
    info = {**info, "cube": {k2: cinfo[k2] for k2 in ("iterations", "converged", "degree", "theta",
                                                      "moment_matrix_order", "stop", "certified_distance")
                             if k2 in cinfo}}
    # the release is the exact LNN projection of the cube step's output; it is the projection onto
    # the cube relaxation and the LNN set in turn only if the cube step converged too
    info["converged"] = bool(info.get("converged", True)) and bool(cinfo.get("converged", True))
    return r2, info


def _table_lnn(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Binary ``"auto"`` without the cube step: the LNN projection in the table metric (:func:`table_metric`).

    The measurement metric ``w_A = 1 / sigma_A^2`` is the likelihood's, but the projection in it only
    shrinks the error in that metric: when the allocation puts far more noise (relative to ``d_A``)
    on the many high-order residuals than on the few low-order ones, as ResidualPlanner's does on
    wide binary domains, it moves the low-order residuals, which every table shares, and *raises*
    the cells' error. Measured on planted binary data (n = 32, 64; docs/bench_allocation.md, "Wide
    binary data", ``benchmarks/planted_rule_study.py``): the measurement-metric projection of the
    RP measurement is worse than its BLUE in L1 and RMSE per cell (run to tol 1e-5, so not a
    convergence effect), while the projection in the table metric, onto the same set (which
    contains the true tables), never raises the RMSE per cell and beats BLUE, truncate-and-rescale
    and GReM-LNN. The metric depends on the layout only (public); post-processing.

    Solved on its dual (``_projector(..., dual=True)``:
    :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual`; in the table metric its step is 1, the
    Lipschitz constant of the dual gradient), as the LNN step after the cube step; the ADMM when ``options``
    sets ``rho``. Measured on the default measurement (``benchmarks/results_marginals/lnnc/``, seeds 0-2,
    interleaved): planted n = 64 at epsilon 3 / 10 (where ``"auto"`` runs this step) 30-70 dual iterations,
    0.9-2.2 s CPU, against the ADMM's 590-1,740 iterations, 19-58 s (0.04x-0.07x); planted n = 32 at 1 / 3 (the
    step forced) 0.03x-0.12x. The dual's objective is lower on all 12 (by 0.1-1.1%), its relative gap 2e-6-3.5e-3
    against the ADMM's 4e-3-1.2e-2; L1 moves by at most 8e-5 relative.
    """
    r, info = _projector(meas, False, options, table_metric(meas.layout), dual=True)
    return r, {**info, "metric": "table", "binary_step": "table"}


#: Diagnostics of an ADMM run kept in ``info`` for the step that was not returned.
_STEP_KEYS = ("iterations", "converged", "primal_residual", "dual_residual", "rho", "theta", "duality_gap", "time",
              "warm_start", "moment_matrix_order", "residuals_converged", "relative_gap", "threads")


def _lnn_then_psd(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Categorical ``"auto"``: the LNN projection, then LNN + one-hot degree-2 PSD warm-started from it.

    The PSD set is the smaller one, so its converged projection is the answer. It is returned only
    when its ADMM converged (``theta <= tol`` and both residuals within tolerance) within its budget
    (``max_iter`` less the LNN step's iterations, at least ``max_iter // 10``); otherwise the LNN
    projection is returned (exact when converged, on the larger set) with
    ``info["psd_fallback"] = "psd-not-converged"`` and the PSD run's diagnostics in
    ``info["psd_step"]``. The warm start continues the LNN iterate, so the PSD step is cheap when
    the PSD constraint is (nearly) inactive at the LNN solution. When neither converged, the LNN
    iterate is returned with ``info["converged"] = False`` and ``on_fail`` applies: never an
    unconverged answer reported as converged. Post-processing of the measurement: the choice reads
    no record.
    """
    from sosproj.policy import apply_on_fail, check_on_fail
    from sosproj.sdp.marginal_admm import MarginalProjector

    opts = dict(options)
    on_fail = check_on_fail(opts.pop("on_fail", "warn"))
    lay, w = meas.layout, meas.weights
    r_lnn, info_lnn, state = MarginalProjector(lay, w, psd=False, **opts).solve_state(
        meas.residuals, on_fail="return")
    # one budget for the two steps: the PSD step gets what the LNN step left, at least a tenth of it
    max_iter = int(opts.pop("max_iter", 1000))
    psd_iter = max(max_iter - int(info_lnn["iterations"]), max_iter // 10, 1)
    r_psd, info_psd, _ = MarginalProjector(lay, w, psd=True, max_iter=psd_iter, **opts).solve_state(
        meas.residuals, on_fail="return", warm_start=state)
    opts["max_iter"] = max_iter
    total_time = info_psd["time"] + info_lnn["time"]
    if info_psd["converged"]:
        return r_psd, {**info_psd, "psd_fallback": None, "psd_step": None,
                       "lnn_step": {k: info_lnn[k] for k in _STEP_KEYS if k in info_lnn}, "time": total_time}
    info = {**info_lnn, "psd_fallback": "psd-not-converged", "lnn_step": None,
            "psd_step": {k: info_psd[k] for k in _STEP_KEYS if k in info_psd}, "time": total_time}
    apply_on_fail(info["converged"], on_fail,
                  f"neither the LNN nor the LNN + PSD projection reached tol={opts.get('tol', 1e-3):g} in "
                  f"{opts.get('max_iter', 1000)} iterations; raise max_iter or tol (the returned LNN tables are "
                  "still non-negative and consistent)", {**info, "value": r_lnn})
    return r_lnn, info


#: Public SNR (:func:`public_snr`) from which ``reconstruction="auto"`` adds the one-hot PSD step on
#: categorical data. Below it the step is skipped: on the synthetic categorical shapes of
#: ``benchmarks/allocation_psd_study.py`` (cat9-wide-m1k, cat8x5-m500; SNR 0.009 to 5.3) the PSD step,
#: warm-started at the converged LNN projection, stopped after 5 iterations in every case and moved the
#: error by at most 0.01% (``benchmarks/results_allocation/raw_psd_*.txt``), while on sparse wide
#: tables it can cost thousands of iterations of thrice the LNN's price. Above the measured range it
#: stays on (not measured there).
PSD_MIN_SNR = 10.0


def _auto(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    """Binary: cube projection then LNN (:func:`_cube_then_lnn`), or where the cube step is too large
    (:func:`cube_degree` ``None``) the LNN projection in the table metric (:func:`_table_lnn`);
    categorical: LNN (:func:`_lnn_dual`, on its dual), plus the one-hot degree-2 PSD step
    (:func:`_lnn_then_psd`) when affordable (:func:`onehot_psd`) and the public SNR is at least :data:`PSD_MIN_SNR`."""
    lay = meas.layout
    snr = public_snr(int(round(float(meas.residuals[lay.empty_pos]))), meas.spec.epsilon, lay)
    if all(s == 2 for s in lay.sizes):
        if joint_auto(lay) and np.isfinite(meas.sigmas).all():
            r, info = _joint(meas, options)
            return r, {**info, "binary_step": "joint"}
        step = binary_step(lay, snr)
        if step == "cube":
            out = _cube_then_lnn(meas, options)
        elif step == "block-cube":
            out = _cube_then_lnn(meas, options, degree=4, weights=table_metric(lay),
                                 basis=block_cube_basis(len(lay.sizes)))
        else:
            return _table_lnn(meas, options)
        assert out is not None
        return out[0], {**out[1], "binary_step": step}
    if onehot_psd(lay) and snr >= PSD_MIN_SNR:
        return _lnn_then_psd(meas, options)
    return _lnn_dual(meas, options)


def _lnn_psd(meas: Measurement, options: dict[str, Any]) -> tuple[np.ndarray, dict[str, Any]]:
    """``reconstruction="lnn-psd"``: :func:`_lnn_then_psd` at every SNR (needs every attribute pair in the
    workload's closure)."""
    from sosproj.sdp.marginal_admm import OneHotMoment

    OneHotMoment(meas.layout)            # the clear error when a pair is missing, before any iteration
    return _lnn_then_psd(meas, options)


def onehot_psd(layout: ResidualLayout) -> bool:
    """Whether ``reconstruction="auto"`` adds the one-hot degree-2 PSD: every attribute pair in the
    workload's closure and the moment matrix within :data:`PSD_MAX_ORDER` / :data:`PSD_MAX_PAIRS`."""
    n = len(layout.sizes)
    pairs_ok = all((i, j) in layout.res_pos for i in range(n) for j in range(i + 1, n))
    affordable = 1 + sum(layout.sizes) <= PSD_MAX_ORDER and n * (n - 1) // 2 <= PSD_MAX_PAIRS
    return pairs_ok and n >= 2 and affordable


#: Limits of the one-hot degree-2 PSD step of ``reconstruction="auto"`` (its map loops over the
#: attribute pairs in Python; above them ``"auto"`` is ``"lnn"``). The order limit (``1 + sum n_i``, public) is a
#: cost limit since session 33 (3000 before): every ADMM iteration of the step decomposes the order-``d`` moment
#: matrix, and on adult (``d = 281``) the step ran 965 iterations at epsilon 1 (seed 0) and took 11-35 s CPU at
#: 1 / 3, 3-10x the whole release
#: (``benchmarks/results_catrule/lead33/notes.md``), where issue 14 asks for <= 0.1x MST's runtime. 200 sits
#: between every synthetic shape of the allocation studies (``d <= 160``; the step runs there only at ``d <= 98``)
#: and adult, so no release of the studies' grid changes (``lead33/psd_census.txt``); ``reconstruction="lnn-psd"``
#: asks for the step at any order.
PSD_MAX_ORDER = 200
PSD_MAX_PAIRS = 500


# ====================================================================== unmeasured sets


#: Largest mixing weight with the uniform tables that :func:`_reconstruct_skipped` applies to the
#: extrapolated residuals instead of a projection (round-off: IPF tables that met their margins and
#: do not disagree leave cells of -1e-12 relative to the uniform ones).
EXACT_THETA = 1e-8


#: The default start of the extrapolation's IPF (``options["extrapolation"]``, :data:`EXTRAPOLATION_PRIORS`;
#: :func:`~sosproj.mechanisms.extrapolation.extrapolate_unmeasured`); ``"tree"`` / ``"tree-pairs"`` are opt-in.
DEFAULT_EXTRAPOLATION = "uniform"


def _reconstruct_skipped(meas: Measurement, reconstruction: str, options: dict[str, Any], *,
                         prior: str = DEFAULT_EXTRAPOLATION) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Reconstruction of a measurement that skipped residual sets (``sigma_A = inf``, :func:`measured_sets`).

    1. The reconstruction ``reconstruction`` on the *measured* family only: the layout whose workload is
       the maximal measured sets (the family is closed under subsets, so it is that layout's closure),
       giving consistent non-negative tables of every measured set.
    2. Every workload set ``W`` with an unmeasured subset gets the maximum-entropy table with the
       reconstructed margins of its maximal measured subsets (:func:`ipf_table`; with only the 1-way sets
       measured, the product of the 1-way tables); every unmeasured set ``A`` gets the interaction
       (the table's margin on ``A`` centered along every axis) averaged over those ``W`` that contain it
       (:func:`~sosproj.mechanisms.extrapolation.extrapolate_unmeasured`). Setting ``c_A = 0`` instead
       (the additive extrapolation) is far worse on sparse tables: on titanic with the TRUE 1-way
       marginals, L1 / m 1.046 after LNN against 0.508 for the product
       (``benchmarks/results_catrule/oracles_titanic.txt``).
    3. The residuals are consistent by construction (one per set); where the workload sets' tables
       disagree on a shared unmeasured subset, or the measured margins inside a set admit no non-negative
       table (``info["ipf_unmet"]``), a cell can be negative, and the LNN projection in the table metric
       (:func:`table_metric`) removes it, solved on its dual by
       :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual` (accelerated projected gradient
       with restarts, certified by its duality gap; the ADMM of
       :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve` stopped at its 5,000-iteration cap on
       adult, ``docs/bench_allocation.md``): ``info["extrapolation_projection"]`` (iterations, ``theta``,
       duality gap), ``info["extrapolation_theta"]``; ``info["converged"]`` is the measured step's and this
       projection's together. With no negative cell (beyond round-off, :data:`EXACT_THETA`) there is no
       projection and the step is exact by construction.
    ``prior``: the start of step 2's IPF (:data:`EXTRAPOLATION_PRIORS`, default :data:`DEFAULT_EXTRAPOLATION`):
    ``"tree"`` / ``"tree-pairs"`` start from the Chow-Liu tree model of the reconstructed measured tables
    (:class:`~sosproj.mechanisms.extrapolation.TreePrior`) instead of the uniform table.
    Post-processing: reads only the noisy residuals, the released total and the public layout.
    """
    from sosproj.sdp.marginal_admm import MarginalProjector, compiled_switch_iteration

    lay = meas.layout
    if reconstruction == "blue":        # the linear estimate: the unmeasured residuals stay 0
        return meas.residuals.copy(), {"solver": None, "extrapolation": "zero"}
    measured = [A for A, sg in zip(lay.residual_sets, meas.sigmas, strict=True) if np.isfinite(sg)]
    total = float(meas.residuals[lay.empty_pos])
    top = maximal_sets(measured)
    r = np.zeros(lay.res_size)
    r[lay.empty_pos] = total
    info: dict[str, Any] = {"measured_family": top}
    sub_tabs: dict[tuple[int, ...], np.ndarray] = {}
    if top:
        sub = ResidualLayout(lay.sizes, top)
        i_full = [lay.res_pos[A] for A in sub.residual_sets]
        r_sub = np.zeros(sub.res_size)
        r_sub[sub.empty_pos] = total
        for A in sub.residual_sets:
            if A:
                sub.residual(r_sub, A)[...] = lay.residual(meas.residuals, A)
        sub_meas = Measurement(sub, r_sub, meas.sigmas[i_full], meas.spec, meas.allocation, meas.m_public)
        sub_options = options
        if ("compiled" not in options and max(len(A) for A in top) >= 2 and lay.compiled_normal
                and compiled_switch_iteration(lay) == 0):
            # the full layout's projection below loads the compiled LNN kernel anyway (sizes only: public), so the
            # measured family's dual runs it from its first iteration (the same answer up to round-off). Only when
            # a set of >= 2 attributes is measured: with 1-way margins alone every extrapolated table is a product
            # of non-negative tables, the projection below never runs and the kernel would be loaded for nothing
            # (adult at epsilon 0.03: 1.1 against 0.8 s CPU, benchmarks/results_marginals/lnn29/)
            sub_options = {**options, "compiled": True}
        r_sub, info = RECONSTRUCTIONS[reconstruction](sub_meas, sub_options)
        info = {**info, "measured_family": top}
        for A in sub.residual_sets:
            if A:
                lay.residual(r, A)[...] = sub.residual(r_sub, A)
        sub_tabs = {A: np.maximum(sub.marginal(r_sub, A), 0.0) for A in top}
    r, einfo = extrapolate_unmeasured(lay, r, measured, sub_tabs, prior=prior)
    info = {**info, "ipf_unmet": einfo["ipf_unmet"], "extrapolation_prior": prior,
            **({"tree_prior": einfo["tree_prior"]} if "tree_prior" in einfo else {})}
    proj = MarginalProjector(lay, table_metric(lay), tol=float(options.get("tol", 1e-3)),
                             max_iter=int(options.get("max_iter", 1000)), compiled=options.get("compiled"))
    tabs = lay.forward(r)                 # built once: the exact test's and the projection's input tables
    r_mix, theta = proj.make_nonnegative(r, tables=tabs)
    exact = theta <= EXACT_THETA          # non-negative up to round-off: no projection
    if exact:
        r = r_mix
    else:
        del r_mix                         # not kept through the projection (one residual vector less at its peak)
        r, pinfo = proj.solve_dual(r, on_fail="return", tables=tabs)
        theta = pinfo["theta"]
        info = {**info, "extrapolation_projection": {"solver": pinfo["solver"],
                                                     **{k: pinfo[k] for k in _STEP_KEYS if k in pinfo}},
                "converged": bool(info.get("converged", True)) and bool(pinfo["converged"])}
    return r, {**info, "extrapolation": "max-entropy", "extrapolation_exact": exact, "extrapolation_theta": theta}


#: Reconstruction methods (post-processing of a :class:`Measurement`): name -> function.
RECONSTRUCTIONS: dict[str, Callable[[Measurement, dict[str, Any]], tuple[np.ndarray, dict[str, Any]]]] = {
    "auto": _auto, "blue": _blue, "lnn": _lnn, "lnn-psd": _lnn_psd, "joint": _joint,
}


# ====================================================================== the pipeline


def _own_stream(gen: np.random.Generator) -> np.random.Generator:
    """A child stream of ``gen`` for a private step drawn besides the measurement, so that the measurement's normals
    stay those of the release without the step; ``gen`` itself for a generator without a seed sequence."""
    try:
        return gen.spawn(1)[0]
    except (AttributeError, TypeError, ValueError):  # pragma: no cover - a generator without a seed sequence
        return gen


def _selection_constants(selection: str, name: str, override: Sequence[float] | None,
                         constants: tuple[float, float, float], label: str) -> tuple[float, float, float]:
    """``(share, kappa, margin)`` of the private selection ``name``: the study override if given, its constants when
    ``selection`` asks for it, else share 0 (off); a share outside [0, 1) is refused."""
    if override is not None:
        share, kappa, margin = (float(x) for x in override)
    elif selection == name:
        share, kappa, margin = constants
    else:
        share, kappa, margin = 0.0, *constants[1:]
    if not 0.0 <= share < 1.0:
        raise InvalidParameterError(f"{label}'s share must be in [0, 1); got {share}")
    return share, kappa, margin


def _public_m(m: int, public_m: Any, adjacency: Adjacency) -> int | None:
    """The number of records the rules may use: ``m`` under replace-one (public there), else ``public_m``."""
    if public_m is not None:
        public_m = check_int(public_m, "public_m", minimum=1)
    if adjacency is Adjacency.REPLACE_ONE:
        if public_m is not None and public_m != m:
            raise InvalidParameterError("public_m must be None or the dataset's size under replace-one adjacency "
                                        "(m is public there and used as is)")
        return m
    return public_m


def release(data: Any, k: int, *, epsilon: float, delta: float, domain: Any = None,
            workload: Any = None, allocation: str = "auto", reconstruction: str = "auto",
            adjacency: Any = Adjacency.REPLACE_ONE, calibration: str = "analytic", rng: RngLike = None,
            accountant: PrivacyAccountant | None = None, options: dict[str, Any] | None = None,
            public_m: int | None = None, _mix: float | None = None,
            _skip: float | tuple[float, ...] | None = None, selection: str = "none",
            _select: tuple[float, float, float] | None = None,
            _select_pairs: tuple[float, float, float] | None = None) -> Any:
    """Release the workload's marginals (default all ``k``-way) of categorical data; see the module docstring.

    ``public_m``: under add/remove adjacency the number of records is private, so the ``"auto"``
    allocation (whose shape depends on the public SNR, :func:`public_snr`) needs a public value of it
    (a declared size or bound, never computed from the records): without it ``allocation="auto"`` is
    refused; the reconstruction's tolerance then uses the released (noisy) total, and the release's
    ``m`` is that total. Under replace-one ``m`` is public and ``public_m`` must be ``None`` or equal it.

    ``options``: the reconstruction's ``tol``, ``max_iter``, ``rho``, ``on_fail``, ``compiled``, and
    ``extrapolation`` (:data:`~sosproj.mechanisms.extrapolation.EXTRAPOLATION_PRIORS`, default
    :data:`DEFAULT_EXTRAPOLATION`, :data:`SELECT_PAIRS_EXTRAPOLATION` with ``selection="pairs"``): the start of
    the skipped sets' IPF, ``"uniform"`` (maximum entropy) or the
    Chow-Liu tree prior of the reconstructed measured tables (``"tree"``: every workload set with a skipped
    subset; ``"tree-pairs"``: those with a skipped pair); post-processing
    (:func:`~sosproj.mechanisms.extrapolation.extrapolate_unmeasured`).

    ``_mix`` / ``_skip`` (studies only) override the ``"auto"`` allocation's mixing weight and its skip
    thresholds (:func:`measured_sets`; ``0``: every residual set measured, the default before the skip rule);
    ``_select`` the private 1-way selection's ``(share, kappa, margin)`` (:data:`SELECT_ONE_WAY`,
    :func:`select_one_way_plan`; it applies whatever ``selection`` says, share ``0``: off); ``_select_pairs`` the
    private pair selection's ``(share, kappa, margin)`` (:data:`SELECT_PAIRS`; likewise).

    ``selection`` (:data:`SELECTIONS`): ``"none"`` (default) measures by the public rule alone, so the noise scales
    are a function of public quantities (issue 14's requirement on the default); ``"one-way"`` adds the private 1-way
    selection (:func:`select_one_way`, :data:`SELECT_ONE_WAY`): a Gaussian mechanism with 3% of the budget asks
    whether each 1-way set the public rule skips is concentrated enough to measure; the whole release keeps its
    (epsilon, delta), but its noise scales then depend on that step's noisy output. ``"pairs"`` adds the private pair
    selection instead (:func:`select_pairs`, :data:`SELECT_PAIRS`): a Gaussian mechanism with a share of the budget
    releases each candidate pair's noisy distance from independence, the pairs worth their noise are measured and
    the others dropped with their supersets; same total (epsilon, delta). In that mode the skipped tables are
    extrapolated from the Chow-Liu tree of the measured pairs (:data:`SELECT_PAIRS_EXTRAPOLATION`, unless
    ``options["extrapolation"]`` names a prior) and the skip rule's thresholds are :data:`SELECT_PAIRS_SKIP_SNR`. Both
    steps run only where the public skip rule runs (the categorical ``"auto"`` allocation); elsewhere the release is
    the one without them. ``info["pair_selection"]`` lists the candidates and the chosen pairs (never the statistics).

    Validation happens here, once: the records into a :class:`Dataset`, the privacy parameters
    into a :class:`~sosproj.privacy.spec.PrivacySpec`; the inner steps trust them.
    """
    from sosproj.data.domain import as_dataset
    from sosproj.mechanisms.release import MarginalTablesRelease, noise_info

    if workload is None:  # refuse from the sizes alone, before any pass over the records
        sizes = _public_sizes(data, domain)
        if sizes is not None:
            check_all_k_way_memory(sizes, check_int(k, K_NAME, minimum=1, maximum=len(sizes)))
    ds = as_dataset(data, domain)
    check_choice(allocation, "allocation", ALLOCATIONS)
    check_choice(reconstruction, "reconstruction", tuple(RECONSTRUCTIONS))
    check_choice(selection, "selection", SELECTIONS)
    spec_args = {"epsilon": check_epsilon(epsilon), "delta": check_delta(delta),
                 "adjacency": Adjacency.parse(adjacency),
                 "calibration": check_choice(calibration, "calibration", CALIBRATIONS)}
    opts = dict(options or {})
    unknown = set(opts) - {"tol", "max_iter", "on_fail", "rho", "compiled", "extrapolation"}
    if unknown:
        raise InvalidParameterError("options may only contain 'tol', 'max_iter', 'rho', 'on_fail', 'compiled', "
                                    f"'extrapolation'; got {sorted(unknown)}")
    extrapolation = check_choice(
        opts.pop("extrapolation", SELECT_PAIRS_EXTRAPOLATION if selection == "pairs" else DEFAULT_EXTRAPOLATION),
        "options['extrapolation']", EXTRAPOLATION_PRIORS)
    if workload is None:
        check_all_k_way_memory(ds.domain.sizes, check_int(k, K_NAME, minimum=1, maximum=ds.n))
    wl = parse_workload(ds.domain, k, workload)
    single = sorted({ds.domain.names[a] for w in wl for a in w if ds.domain.sizes[a] == 1})
    if single:   # public (the domain): a one-value attribute has no residual to measure
        raise InvalidParameterError(
            f"attributes with a single value in the workload: {single}; a table with such an attribute is the "
            "table without it (the attribute carries no information): drop it from the domain (or the workload)")
    layout = ResidualLayout.checked(ds.domain.sizes, wl)
    if reconstruction == "joint":
        check_joint(layout)
    m_pub = _public_m(ds.m, public_m, spec_args["adjacency"])
    snr = public_snr(m_pub, spec_args["epsilon"], layout) if m_pub is not None else None
    mix: float | None = float(_mix) if _mix is not None else None
    if allocation == "auto" and mix is None:
        if snr is None:
            raise InvalidParameterError(
                "allocation='auto' under add/remove adjacency needs public_m= (a public number of records, "
                "e.g. a declared size: the allocation's shape depends on it and m itself is private here); "
                "or pass allocation='rp' or 'equal-tables'")
        mix = auto_mix(snr, rule=mix_rule(layout, reconstruction, snr))
    skip = _skip if _skip is not None else skip_threshold(layout, allocation, reconstruction, selection)
    sigmas, spec, sens = noise_scales(layout, allocation, spec_args, m_pub or 0, mix=mix, skip=skip,
                                      reconstruction=reconstruction)
    sel_share, sel_kappa, sel_margin = _selection_constants(selection, "one-way", _select, SELECT_ONE_WAY,
                                                            "the selection")
    pair_share, pair_kappa, pair_margin = _selection_constants(selection, "pairs", _select_pairs, SELECT_PAIRS,
                                                               "the pair selection")
    if pair_share > 0.0 and sel_share > 0.0:
        raise InvalidParameterError("the private 1-way and pair selections are exclusive: pass one of them")
    candidates = [A for A in sens["unmeasured_sets"] if len(A) == 1] if allocation == "auto" else []
    plan = pair_plan = None
    if sel_share > 0.0 and candidates:       # public: the rule's unmeasured 1-way sets, sizes, m, the budget
        s_shape = allocation_shape(layout, allocation, m=m_pub or 0, epsilon=spec_args["epsilon"], mix=mix)
        plan = select_one_way_plan(layout, s_shape, spec_args, np.isfinite(sigmas), candidates, m_pub,
                                   sel_share, sel_kappa, sel_margin)
    if pair_share > 0.0 and allocation == "auto" and max(np.atleast_1d(sens["skip_threshold"])) > 0:
        # public: the rule's measured family at the whole budget, sizes, workload, m, the budget
        s_shape = allocation_shape(layout, allocation, m=m_pub or 0, epsilon=spec_args["epsilon"], mix=mix)
        pair_plan = select_pairs_plan(layout, s_shape, spec_args, np.isfinite(sigmas), m_pub, pair_share,
                                      pair_kappa, pair_margin)
    if accountant is not None:
        # before the records are read: a refused charge draws no noise and releases nothing. With the private
        # 1-way selection the release is two Gaussian mechanisms whose mu^2 add up to this one's (sigma0_of)
        accountant.charge_gaussian(sigma=sens["sigma0"], spec=spec,
                                   label=f"release_marginals[{allocation}/{reconstruction}]")
    gen = as_generator(rng)
    selection = None
    if plan is not None:
        gen_sel = _own_stream(gen)
        chosen, selection = select_one_way(ds, plan, gen_sel)
        spec_main = {**spec_args, "share": 1.0 - sel_share}
        rejected = [A for A in candidates if A not in chosen] if SELECT_DROP_REJECTED else []
        sigmas, spec, sens = noise_scales(layout, allocation, spec_main, m_pub or 0, mix=mix, skip=skip,
                                          reconstruction=reconstruction, keep_sets=chosen, drop_sets=rejected)
    pair_selection = None
    if pair_plan is not None:
        gen_pairs = _own_stream(gen)
        chosen, pair_selection = select_pairs(ds, layout, s_shape, spec_args, pair_plan, gen_pairs)
        rejected = [A for A in pair_plan["candidates"] if A not in chosen]
        sigmas, spec, sens = noise_scales(layout, allocation, {**spec_args, "share": 1.0 - pair_share}, m_pub or 0,
                                          mix=mix, skip=skip, reconstruction=reconstruction,
                                          keep_sets=chosen if SELECT_PAIRS_FORCE else (), drop_sets=rejected)
    meas = measure(ds, layout, sigmas, spec, allocation, gen)
    shrunk: list[tuple[int, ...]] = []
    unshrunk: list[tuple[int, ...]] = []
    if (ONE_WAY_SHRINK > 0 and m_pub is not None and max(np.atleast_1d(sens["skip_threshold"])) > 0
            and not noise_is_disabled()):
        # the skip rule's post-processing of its low-SNR 1-way measurements (public choice of the sets); without
        # noise (sosproj.testing.noise_disabled) the noise drawn has variance 0 and the James-Stein factor is 1
        raw = meas
        meas, shrunk = shrink_residuals(meas, m_pub, (ONE_WAY_SHRINK, RESIDUAL_SHRINK),
                                        (ONE_WAY_SHRINK_BAND, *RESIDUAL_SHRINK_BANDS),
                                        band_sigmas=sens.get("band_sigmas"))
        if ONE_WAY_L1_DRAWS > 0 and any(len(A) == 1 for A in shrunk):
            gen_l1 = _own_stream(gen)
            meas, kept = select_one_way_estimate(raw, meas, m_pub, shrunk, ONE_WAY_SHRINK, gen_l1,
                                                 draws=ONE_WAY_L1_DRAWS)
            unshrunk = [A for A in shrunk if len(A) == 1 and A not in kept]
            shrunk = [A for A in shrunk if A not in unshrunk]
    if snr is None:   # add/remove without public_m: the reconstruction's settings from the released total
        snr = public_snr(max(int(round(float(meas.residuals[layout.empty_pos]))), 1), spec.epsilon, layout)
    rule = mix_rule(layout, reconstruction, snr)
    if "tol" not in opts:
        opts["tol"] = default_tolerance(snr)
        if opts["tol"] < DEFAULT_TOL:
            opts.setdefault("max_iter", TIGHT_MAX_ITER)
    if rule not in ("cube", "joint") and reconstruction != "blue":
        # the LNN / one-hot PSD projections of sparse categorical tables need thousands of iterations
        # to reach theta <= tol (titanic-sized tables: 1,000-5,000); the cube step and the exact polytope keep
        # their own budgets
        opts.setdefault("max_iter", TIGHT_MAX_ITER)
    if np.isfinite(sigmas).all():
        r, rinfo = RECONSTRUCTIONS[reconstruction](meas, opts)
    else:
        r, rinfo = _reconstruct_skipped(meas, reconstruction, opts, prior=extrapolation)
    info: dict[str, Any] = {
        "mechanism": "residual-marginals", "allocation": allocation, "reconstruction": reconstruction,
        "adjacency": spec.adjacency.value, "sensitivity_exact": sens["exact"], "sigma0": sens["sigma0"],
        "noise_scales": {A: float(sigmas[i]) for i, A in enumerate(layout.residual_sets) if A or sigmas[i] > 0},
        "unmeasured_sets": sens["unmeasured_sets"], "skip_threshold": sens["skip_threshold"],
        "one_way_selection": selection, "pair_selection": pair_selection,
        "shrunk_one_way_sets": [A for A in shrunk if len(A) == 1], "shrunk_sets": shrunk,
        "raw_one_way_sets": unshrunk,
        "auto_mix": mix if allocation == "auto" else None,
        "auto_mix_rule": rule if allocation == "auto" else None,
        "public_snr": snr, "reconstruction_tol": opts["tol"], "extrapolation": extrapolation,
        "reconstruction_info": rinfo, **layout.info(), **noise_info(),
    }
    m_out = ds.m if spec.adjacency is Adjacency.REPLACE_ONE else max(int(round(float(r[layout.empty_pos]))), 0)
    return MarginalTablesRelease(domain=ds.domain, k=int(k), workload=tuple(wl), residuals=r, m=m_out,
                                 spec=spec, method=f"{allocation}/{reconstruction}", info=info, layout=layout)


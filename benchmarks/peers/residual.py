r"""ResidualPlanner (Xiao, Bai, Kifer, Wang, NeurIPS 2023) for a workload of marginals, in numpy/scipy.

Benchmark peer of sosproj's marginal pipeline; never imported by ``sosproj``.

Residual basis
--------------
Attribute ``i`` has ``n_i`` values; ``Sub_i = [1 | -I]`` is the ``(n_i - 1) x n_i`` matrix whose rows span
``1^\perp``.  For a nonempty attribute set ``A`` the residual query is
``R_A = (x)_{i in A} Sub_i (x)_{i not in A} 1^T``: it reads the ``A``-marginal ``mu_A`` through
``(x)_{i in A} Sub_i``.  ResidualPlanner answers it with noise covariance
``sigma_A^2 (x)_{i in A} Sub_i Sub_i^T``, i.e. it releases ``Sub_A (mu_A + sigma_A z)``, ``z ~ N(0, I)``.
Since ``Sub_i^+ Sub_i = P_i = I - J/n_i`` this is the same information as the projected table

    r_A = P_A (mu_A + sigma_A z),   P_A = (x)_{i in A} P_i,

which is what this module stores (one array of shape ``(n_i)_{i in A}`` per residual, mean zero along
every axis).  In the whitened metric ``(Sub_A Sub_A^T)^{-1} / sigma_A^2`` the squared distance of two
measurements is ``||r_A - r'_A||^2 / sigma_A^2``.  The empty residual (the total ``m``) is public under
replace-one adjacency and is not measured.

Reconstruction (best linear unbiased)
-------------------------------------
``mu_W = (x)_{i in W} (P_i + J_i/n_i) mu_W = sum_{A subset W} expand_W(P_A mu_A) / prod_{i in W \ A} n_i``,
so the BLUE of every workload marginal is ``sum_{A subset W, A != {}} expand_W(r_A) / prod_{W \ A} n_i +
m / prod_W n_i`` (the residuals of different ``A`` are independent and each is fully observed in its
subspace); :func:`blue` applies this as one sparse matrix ``M``.

Allocation (closed form, RP's Theorem for the sum of cell variances)
--------------------------------------------------------------------
Residual ``A`` adds ``sigma_A^2 v_A`` to the summed cell variance of the workload, with
``v_A = sum_{W in workload, W >= A} prod_{i in A} (n_i - 1) prod_{i in W \ A} 1/n_i``, and costs
``p_A / sigma_A^2`` with ``p_A = prod_{i in A} (n_i - 1)/n_i`` (RP's privacy cost).  Minimizing
``sum sigma_A^2 v_A`` subject to ``sum p_A / sigma_A^2 = c`` gives ``sigma_A^2 proportional to
sqrt(p_A / v_A)``; the scale is then set by the exact replace-one sensitivity below.

Replace-one sensitivity
-----------------------
Replacing record ``r`` by ``r'`` (differing on the attribute set ``S``) moves the whitened measurement by
``sum_A (2/sigma_A^2) [prod_{i in A} (1 - 1/n_i) - prod_{i in A \ S} (1 - 1/n_i) prod_{i in A & S} (-1/n_i)]``
in squared norm (``||P_A (e_a - e_b)||^2`` with ``P_i = I - J/n_i``), which depends only on ``S``;
:func:`replace_one_sensitivity` maximizes it over every nonempty ``S``.  The Gaussian mechanism with unit
noise on the whitened measurement is then calibrated by the analytic Gaussian mechanism
(``sosproj.privacy.calibration.gaussian_sigma``).

References: Y. Xiao, G. Bai, D. Kifer, Y. Wang, "An optimal and scalable matrix mechanism for noisy
marginals under convex loss functions", NeurIPS 2023.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp


def _subsets(t: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Nonempty subsets of ``t`` (as sorted tuples), by size."""
    return [c for r in range(1, len(t) + 1) for c in itertools.combinations(t, r)]


@dataclass
class MarginalWorkload:
    """A workload of marginals over a categorical domain, with its residual family and layouts.

    ``sets``: workload attribute sets (sorted tuples).  ``residuals``: every nonempty subset of a workload
    set, ordered by shape then lexicographically (so same-shape residuals are contiguous and the
    projection ``P`` runs batched).  ``M`` maps the concatenated residual tables to the concatenated
    workload tables (C order), ``inv_cells`` holds ``1 / prod_W n_i`` per workload cell.
    """

    sizes: tuple[int, ...]
    sets: list[tuple[int, ...]]
    residuals: list[tuple[int, ...]] = field(init=False)
    res_offsets: np.ndarray = field(init=False)
    wl_offsets: np.ndarray = field(init=False)
    groups: list[tuple[tuple[int, ...], int, int]] = field(init=False)
    M: sp.csr_matrix = field(init=False)
    inv_cells: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = tuple(int(s) for s in self.sizes)
        self.sets = [tuple(sorted(int(a) for a in w)) for w in self.sets]
        fam = set()
        for w in self.sets:
            fam.update(_subsets(w))
        shape = {a: tuple(self.sizes[i] for i in a) for a in fam}
        self.residuals = sorted(fam, key=lambda a: (len(a), shape[a], a))
        ncell = np.array([math.prod(shape[a]) for a in self.residuals], dtype=np.int64)
        self.res_offsets = np.concatenate([[0], np.cumsum(ncell)])
        self.groups = []
        for key, grp in itertools.groupby(range(len(self.residuals)), key=lambda j: shape[self.residuals[j]]):
            idx = list(grp)
            self.groups.append((key, int(self.res_offsets[idx[0]]), len(idx)))
        index = {a: j for j, a in enumerate(self.residuals)}
        wcells = np.array([math.prod(self.sizes[i] for i in w) for w in self.sets], dtype=np.int64)
        self.wl_offsets = np.concatenate([[0], np.cumsum(wcells)])
        rows, cols, vals = [], [], []
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for j, w in enumerate(self.sets):
            by_shape.setdefault(tuple(self.sizes[i] for i in w), []).append(j)
        for wshape, js in by_shape.items():
            js_arr = np.array(js)
            W = np.array([self.sets[j] for j in js])  # g x k
            nc = math.prod(wshape)
            grid = np.indices(wshape).reshape(len(wshape), -1)
            base_rows = self.wl_offsets[js_arr][:, None] + np.arange(nc)[None, :]
            for pos in _subsets(tuple(range(len(wshape)))):
                sub_shape = tuple(wshape[p] for p in pos)
                local = np.ravel_multi_index(tuple(grid[list(pos)]), sub_shape)
                ridx = np.array([index[tuple(row)] for row in W[:, list(pos)]])
                rest = [wshape[p] for p in range(len(wshape)) if p not in pos]
                rows.append(base_rows.ravel())
                cols.append((self.res_offsets[ridx][:, None] + local[None, :]).ravel())
                vals.append(np.full(base_rows.size, 1.0 / math.prod(rest)))
        self.M = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                               shape=(int(self.wl_offsets[-1]), int(self.res_offsets[-1])))
        self.inv_cells = np.repeat(1.0 / wcells, wcells)

    @classmethod
    def all_k_way(cls, sizes: tuple[int, ...] | list[int], k: int) -> MarginalWorkload:
        return cls(tuple(sizes), list(itertools.combinations(range(len(sizes)), k)))

    # -- layouts ---------------------------------------------------------------------------------
    def split_workload(self, flat: np.ndarray) -> list[np.ndarray]:
        """Workload tables (one array per set, axes in the set's order) from the flat vector."""
        return [flat[self.wl_offsets[j]:self.wl_offsets[j + 1]].reshape([self.sizes[i] for i in w])
                for j, w in enumerate(self.sets)]

    def project(self, flat_res: np.ndarray) -> np.ndarray:
        """``P`` (mean zero along every axis) applied to each residual block of a flat vector."""
        out = np.array(flat_res, dtype=float, copy=True)
        for shape, start, g in self.groups:
            blk = out[start:start + g * math.prod(shape)].reshape((g,) + shape)
            for ax in range(len(shape)):
                blk -= blk.mean(axis=1 + ax, keepdims=True)
        return out

    def residual_sigmas_flat(self, sigmas: np.ndarray) -> np.ndarray:
        """Per-cell copy of the per-residual scales."""
        return np.repeat(np.asarray(sigmas, float), np.diff(self.res_offsets))

    # -- data ------------------------------------------------------------------------------------
    def marginal(self, X: np.ndarray, attrs: tuple[int, ...]) -> np.ndarray:
        shp = tuple(self.sizes[i] for i in attrs)
        idx = np.ravel_multi_index(tuple(X[:, i] for i in attrs), shp)
        return np.bincount(idx, minlength=math.prod(shp)).astype(float)

    def workload_answers(self, X: np.ndarray) -> np.ndarray:
        """True workload tables, flat (C order per table)."""
        return np.concatenate([self.marginal(X, w) for w in self.sets])

    def residual_marginals(self, X: np.ndarray) -> np.ndarray:
        """Flat concatenation of ``mu_A`` for every residual set (unprojected)."""
        return np.concatenate([self.marginal(X, a) for a in self.residuals])


def rp_allocation_shape(wl: MarginalWorkload) -> np.ndarray:
    r"""RP's optimal relative noise scales ``sigma_A proportional to (p_A / v_A)^{1/4}`` (sum of cell variances)."""
    v = {a: 0.0 for a in wl.residuals}
    for w in wl.sets:
        for a in _subsets(w):
            v[a] += (math.prod(wl.sizes[i] - 1 for i in a)
                     / math.prod(wl.sizes[i] for i in w if i not in a))
    p = np.array([math.prod((wl.sizes[i] - 1) / wl.sizes[i] for i in a) for a in wl.residuals])
    vv = np.array([v[a] for a in wl.residuals])
    return (p / vv) ** 0.25


def _sens_terms(sizes: tuple[int, ...], a: tuple[int, ...], s_mask: np.ndarray) -> np.ndarray:
    """``2 [prod_A (1-1/n) - prod_{A\\S} (1-1/n) prod_{A&S} (-1/n)]`` for every row of ``s_mask``."""
    full = math.prod(1.0 - 1.0 / sizes[i] for i in a)
    prod = np.ones(s_mask.shape[0])
    for i in a:
        prod *= np.where(s_mask[:, i], -1.0 / sizes[i], 1.0 - 1.0 / sizes[i])
    return 2.0 * (full - prod)


def replace_one_sensitivity(wl: MarginalWorkload, sigmas: np.ndarray, *, max_enum: int = 20) -> float:
    r"""Exact replace-one l2 sensitivity of the whitened residual measurement with scales ``sigmas``.

    ``max over nonempty S of sum_A T_A(S) / sigma_A^2`` (module docstring).  Enumerates every ``S`` for
    ``d <= max_enum`` attributes; above that it needs equal sizes, a residual family of all subsets of size
    ``<= k`` and scales depending on ``|A|`` only, where the sum depends on ``|S|`` only.
    """
    sigmas = np.asarray(sigmas, float)
    d = len(wl.sizes)
    if d <= max_enum:
        best = 0.0
        masks_all = (np.arange(1, 2**d)[:, None] >> np.arange(d)[None, :]) & 1
        for start in range(0, masks_all.shape[0], 1 << 14):
            masks = masks_all[start:start + (1 << 14)].astype(bool)
            tot = np.zeros(masks.shape[0])
            for a, s in zip(wl.residuals, sigmas):
                tot += _sens_terms(wl.sizes, a, masks) / s**2
            best = max(best, float(tot.max()))
        return math.sqrt(best)
    n = wl.sizes[0]
    k = max(len(a) for a in wl.residuals)
    by_size: dict[int, float] = {}
    for a, s in zip(wl.residuals, sigmas):
        if by_size.setdefault(len(a), s) != s:
            raise ValueError("sensitivity for > max_enum attributes needs scales that depend on |A| only")
    if any(x != n for x in wl.sizes) or len(wl.residuals) != sum(math.comb(d, j) for j in range(1, k + 1)):
        raise ValueError("sensitivity for > max_enum attributes needs equal sizes and all subsets of size <= k")
    best = 0.0
    for s_size in range(1, d + 1):
        tot = 0.0
        for j in range(1, k + 1):
            for t in range(1, min(j, s_size) + 1):
                cnt = math.comb(s_size, t) * math.comb(d - s_size, j - t)
                term = 2.0 * ((1 - 1 / n) ** j - (1 - 1 / n) ** (j - t) * (-1 / n) ** t)
                tot += cnt * term / by_size[j] ** 2
        best = max(best, tot)
    return math.sqrt(best)


@dataclass
class ResidualMeasurement:
    """Noisy projected residuals ``r`` (flat), their per-residual scales and the public total ``m``."""

    wl: MarginalWorkload
    r: np.ndarray
    sigmas: np.ndarray
    m: int
    sensitivity_shape: float


def calibrated_sigmas(wl: MarginalWorkload, shape: np.ndarray, epsilon: float,
                      delta: float) -> tuple[np.ndarray, float]:
    """Scale ``shape`` so the whitened measurement is (epsilon, delta)-DP under replace-one (analytic Gaussian)."""
    from sosproj.privacy.calibration import gaussian_sigma

    sens = replace_one_sensitivity(wl, shape)
    return np.asarray(shape, float) * sens * gaussian_sigma(epsilon, delta, 1.0), sens


def measure(wl: MarginalWorkload, X: np.ndarray, sigmas: np.ndarray, rng: np.random.Generator,
            *, sens_shape: float = float("nan")) -> ResidualMeasurement:
    """``r_A = P_A (mu_A + sigma_A z_A)`` for every residual (``sigmas = 0``: noise off)."""
    mu = wl.residual_marginals(X)
    z = rng.standard_normal(mu.size) * wl.residual_sigmas_flat(sigmas)
    return ResidualMeasurement(wl, wl.project(mu + z), np.asarray(sigmas, float), int(X.shape[0]), sens_shape)


def residual_planner(wl: MarginalWorkload, X: np.ndarray, epsilon: float, delta: float,
                     rng: np.random.Generator) -> ResidualMeasurement:
    """ResidualPlanner's measurement: RP-optimal shape, calibrated to replace-one (epsilon, delta)."""
    shape = rp_allocation_shape(wl)
    sig, sens = calibrated_sigmas(wl, shape, epsilon, delta)
    return measure(wl, X, sig, rng, sens_shape=sens)


def blue(meas: ResidualMeasurement) -> np.ndarray:
    """Best linear unbiased workload tables (flat): ``M r + m / prod_W n_i``."""
    return meas.wl.M @ meas.r + meas.m * meas.wl.inv_cells


def truncate_rescale(wl: MarginalWorkload, flat: np.ndarray, m: int) -> np.ndarray:
    """Clip negative cells to 0 and rescale every table to total ``m`` (uniform if a table is all zero)."""
    out = np.clip(flat, 0.0, None)
    for j in range(len(wl.sets)):
        sl = slice(wl.wl_offsets[j], wl.wl_offsets[j + 1])
        tot = out[sl].sum()
        out[sl] = out[sl] * (m / tot) if tot > 0 else m / (sl.stop - sl.start)
    return out


__all__ = ["MarginalWorkload", "ResidualMeasurement", "rp_allocation_shape", "replace_one_sensitivity",
           "calibrated_sigmas", "measure", "residual_planner", "blue", "truncate_rescale"]

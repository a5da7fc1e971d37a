r"""Extrapolation of unmeasured residual sets from the reconstructed tables of the measured ones.

The ``"auto"`` allocation may skip residual sets whose public SNR is too low to be worth their noise
(:func:`~sosproj.mechanisms.marginals_pipeline.measured_sets`): the measured family ``F`` is closed under
subsets, the unmeasured one under supersets (within the workload's closure). After the reconstruction
of ``F`` (consistent, non-negative tables ``T_B``, ``B`` in ``F``), every unmeasured set ``A`` needs a
residual ``c_A`` such that every workload table stays non-negative and consistent.

:func:`extrapolate_levelwise` (the default) chooses the *tables* of the unmeasured sets, smallest first:

1. every workload set ``W`` with an unmeasured subset proposes its maximum-entropy table given the
   measured margins inside it, :math:`P_W = \mathrm{IPF}(\{T_B : B \subseteq W, B \in F\})`
   (:func:`ipf_table`);
2. every unmeasured ``A`` (by increasing size) gets the table
   :math:`M_A = \mathrm{IPF}\big(\text{start } \bar P_A,\ \{M_B : B \subset A, |B| = |A| - 1\}\big)`:
   the I-projection (Csiszar 1975) of the average :math:`\bar P_A` of the proposals' margins on ``A``
   onto the tables with the already fixed margins of its subsets (measured ones: ``T_B``; unmeasured
   ones: their ``M_B``). When every subset of ``A`` is measured the average already has those margins
   (each proposal has them) and ``M_A = \bar P_A``; for a maximal workload set ``A = W`` the start is
   ``P_W`` and ``M_W`` is the maximum-entropy table of ``W`` given *all* its margins (Pythagorean
   identity of I-projections onto nested linear families);
3. ``c_A`` is the interaction of ``M_A`` (:func:`top_residual`: centred along every axis).

By induction the table of ``A`` built from the residuals is :math:`M_A \ge 0` whenever each IPF met its
margins, so every workload table is non-negative and consistent *by construction*, with no projection.
IPF meets the margins exactly in the limit whenever a non-negative table with them exists; if it does
not (the fixed margins of a set's subsets can be pairwise consistent yet not jointly realizable), the
table of ``A`` built from the residuals differs from ``M_A`` by the unmet margin gaps and may have negative
cells. Those are reported (``info["ipf_unmet"]``, the largest margin gap relative to the total) and
removed by the caller (mixing with the uniform tables, or a projection).

Post-processing only: the inputs are the reconstructed measured tables, the released total and the
public layout.

References: W. E. Deming, F. F. Stephan (1940) for IPF; I. Csiszar, "I-divergence geometry of probability
distributions and minimization problems", Ann. Probab. 3 (1975) for the I-projection and its
Pythagorean identity; the averaging of step 2 replaces the earlier rule (``c_A`` averaged over the
workload sets, then an LNN projection of the whole layout in the table metric).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sosproj.data.residuals import ResidualLayout

__all__ = ["extrapolate_levelwise", "ipf_table", "maximal_sets", "top_residual"]


def maximal_sets(sets: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The non-empty sets of a family not contained in another of its sets."""
    ss = [set(A) for A in sets]
    return [A for A, a in zip(sets, ss, strict=True) if A and not any(a < b for b in ss)]


def ipf_table(shape: tuple[int, ...], margins: dict[tuple[int, ...], np.ndarray], total: float, *,
              tol: float = 1e-10, max_cycles: int = 200, init: np.ndarray | None = None) -> np.ndarray:
    r"""The maximum-entropy table of ``shape`` with the given margins (axes -> non-negative table), by
    iterative proportional fitting from the uniform table of ``total`` (or from ``init``: then the
    I-projection of ``init`` onto the tables with those margins).

    Each cycle rescales the table to every margin in turn (cells of a zero margin cell become 0); for a
    decomposable family of margins (e.g. disjoint ones: the product :math:`\prod_i T_i / m^{k-1}`) one
    cycle is exact. Stops when every margin matches to ``tol * total`` (or after ``max_cycles``).

    >>> t = ipf_table((2, 3), {(0,): np.array([1.0, 3.0]), (1,): np.array([2.0, 1.0, 1.0])}, 4.0)
    >>> t.tolist()
    [[0.5, 0.25, 0.25], [1.5, 0.75, 0.75]]
    """
    return ipf_fit(shape, margins, total, tol=tol, max_cycles=max_cycles, init=init)[0]


def ipf_fit(shape: tuple[int, ...], margins: dict[tuple[int, ...], np.ndarray], total: float, *,
            tol: float = 1e-10, max_cycles: int = 200, init: np.ndarray | None = None
            ) -> tuple[np.ndarray, float]:
    """:func:`ipf_table` and the largest gap between the returned table's margins and the targets."""
    T = (np.full(shape, float(total) / max(math.prod(shape), 1)) if init is None
         else np.array(init, dtype=float).reshape(shape))
    nd = len(shape)
    scale = max(float(total), 1.0)
    drops = {axes: tuple(a for a in range(nd) if a not in axes) for axes in margins}
    for _ in range(max_cycles):
        worst = 0.0
        for axes, target in margins.items():
            drop = drops[axes]
            cur = T.sum(axis=drop) if drop else T
            worst = max(worst, float(np.abs(cur - target).max()))
            with np.errstate(divide="ignore", invalid="ignore"):
                f = np.where(cur > 0, target / np.where(cur > 0, cur, 1.0), 0.0)
            T = T * np.expand_dims(f, drop) if drop else T * f
        if worst <= tol * scale:
            break
    gap = max((float(np.abs((T.sum(axis=drops[ax]) if drops[ax] else T) - t).max()) for ax, t in margins.items()),
              default=0.0)
    return T, gap


def top_residual(T: np.ndarray) -> np.ndarray:
    r"""``c_A`` of a table over ``A``: the table centered along every axis (:math:`\otimes_i P_i T`)."""
    c = np.array(T, dtype=float)
    for ax in range(c.ndim):
        c -= c.mean(axis=ax, keepdims=True)
    return c


def _margin(T: np.ndarray, axes_of_T: tuple[int, ...], B: tuple[int, ...]) -> np.ndarray:
    """The margin on the attributes ``B`` (a subset of ``axes_of_T``) of the table ``T`` over ``axes_of_T``."""
    drop = tuple(p for p, x in enumerate(axes_of_T) if x not in B)
    return T.sum(axis=drop) if drop else T


def measured_proposals(layout: ResidualLayout, measured: Sequence[tuple[int, ...]],
                       tables: dict[tuple[int, ...], np.ndarray], unmeasured: Sequence[tuple[int, ...]],
                       total: float) -> tuple[dict[tuple[int, ...], np.ndarray], dict[tuple[int, ...], int]]:
    r"""Step 1: the sums of the workload sets' maximum-entropy proposals' margins on each unmeasured set, and
    their counts (``tables``: non-negative tables of the maximal measured sets)."""
    mset = [set(A) for A in measured]
    useen = [set(A) for A in unmeasured]
    acc = {A: np.zeros(tuple(layout.sizes[x] for x in A)) for A in unmeasured}
    cnt = dict.fromkeys(unmeasured, 0)
    for W in layout.workload:
        wset = set(W)
        if not any(a <= wset for a in useen):
            continue                             # every subset measured: nothing to extrapolate
        margins: dict[tuple[int, ...], np.ndarray] = {}
        for B in maximal_sets([M for M, b in zip(measured, mset, strict=True) if b <= wset]):
            Mx = next(M for M in tables if set(B) <= set(M))
            margins[tuple(W.index(x) for x in B)] = _margin(tables[Mx], Mx, B)
        T = ipf_table(tuple(layout.sizes[x] for x in W), margins, total)
        for A, a in zip(unmeasured, useen, strict=True):
            if a <= wset:
                acc[A] += _margin(T, W, A)
                cnt[A] += 1
    return acc, cnt


def levelwise_tables(layout: ResidualLayout, r: np.ndarray, starts: dict[tuple[int, ...], np.ndarray], *,
                     tol: float = 1e-10, max_cycles: int = 500) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Refit the sets of ``starts`` smallest first: ``M_A = IPF(start, tables of A's (|A|-1)-subsets)``,
    ``c_A = top_residual(M_A)``; the other sets' tables are read from ``r``."""
    total = float(r[layout.empty_pos])
    scale = max(total, 1.0)
    out = np.array(r, dtype=float)
    fixed: dict[tuple[int, ...], np.ndarray] = {}

    def table_of(B: tuple[int, ...]) -> np.ndarray:
        if B not in fixed:
            fixed[B] = np.maximum(layout.marginal(out, B), 0.0)
        return fixed[B]

    worst, n_unmet = 0.0, 0
    for A in sorted(starts, key=len):
        shape = tuple(layout.sizes[x] for x in A)
        margins = {tuple(A.index(x) for x in B): table_of(B)
                   for B in itertools.combinations(A, len(A) - 1) if B}
        # a start whose subsets all keep their tables already has their margins (each proposal of
        # measured_proposals is fitted to them): refit only below an unmeasured subset
        cycles = max_cycles if any(B in starts for B in itertools.combinations(A, len(A) - 1)) else 0
        M, gap = ipf_fit(shape, margins, total, tol=tol, max_cycles=cycles, init=np.maximum(starts[A], 0.0))
        if gap > tol * scale * 10:
            n_unmet += 1
        worst = max(worst, gap / scale)
        fixed[A] = M
        layout.residual(out, A)[...] = top_residual(M)
    return out, {"ipf_unmet": worst, "ipf_unmet_sets": n_unmet}


def extrapolate_levelwise(layout: ResidualLayout, r: np.ndarray, measured: Sequence[tuple[int, ...]],
                          tables: dict[tuple[int, ...], np.ndarray], *, tol: float = 1e-10,
                          max_cycles: int = 500) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Fill the unmeasured residual sets of ``r`` (module docstring, steps 1-3)."""
    total = float(r[layout.empty_pos])
    mset = {tuple(A) for A in measured}
    unmeasured = [A for A in layout.residual_sets if A and A not in mset]
    if not unmeasured:
        return np.array(r, dtype=float), {"ipf_unmet": 0.0, "ipf_unmet_sets": 0}
    acc, cnt = measured_proposals(layout, list(measured), tables, unmeasured, total)
    return levelwise_tables(layout, r, {A: acc[A] / cnt[A] for A in unmeasured}, tol=tol, max_cycles=max_cycles)

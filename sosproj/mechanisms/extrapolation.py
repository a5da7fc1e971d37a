r"""Extrapolation of unmeasured residual sets from the reconstructed tables of the measured ones.

The ``"auto"`` allocation may skip residual sets whose public SNR is too low to be worth their noise
(:func:`~sosproj.mechanisms.marginals_pipeline.measured_sets`): the measured family ``F`` is closed under
subsets, the unmeasured one under supersets (within the workload's closure). After the reconstruction
of ``F`` (consistent, non-negative tables ``T_B``, ``B`` in ``F``), :func:`extrapolate_unmeasured` gives every
unmeasured set ``A`` a residual:

1. every workload set ``W`` with an unmeasured subset gets its maximum-entropy table given the measured
   margins inside it, :math:`P_W = \mathrm{IPF}(\{T_B : B \subseteq W, B \in F\})` (:func:`ipf_table`;
   with only the 1-way sets measured, the product of the 1-way tables; stopped once a cycle shrinks the
   largest margin gap by less than :data:`EXTRAPOLATION_STALL`, the sign that the margins admit no table);
2. ``c_A`` is the interaction of ``P_W``'s margin on ``A`` (:func:`top_residual`: centred along every
   axis), averaged over the workload sets ``W`` that contain ``A``.

The residuals are consistent by construction (one per set); a table is non-negative where it is its own
``P_W`` (``A`` in a single ``W``) and IPF met the margins. Cells can be negative where the ``W`` sharing an
unmeasured ``A`` disagree on it, or where the measured margins inside ``W`` admit no non-negative table
(pairwise consistent tables need not be jointly realizable; ``info["ipf_unmet"]``, the largest margin gap
of any ``P_W`` relative to the total, says so); the caller then projects
(:func:`~sosproj.mechanisms.marginals_pipeline._reconstruct_skipped`).

A *levelwise* variant (the unmeasured sets' tables fixed smallest first, each the I-projection of its
averaged proposal onto its subsets' fixed tables, so that every table is non-negative by construction
where the margins are realizable) was measured and dropped: after the same projection it was worse on
Titanic at epsilon 1 in 5 of 5 seeds (L1 ratio 1.0018, 95% interval [1.0005, 1.0032];
``benchmarks/results_marginals/extrap_v8/``), the averaged interactions being the better start.

Post-processing only: the inputs are the reconstructed measured tables, the released total and the
public layout. References: W. E. Deming, F. F. Stephan (1940) for IPF.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sosproj.data.residuals import ResidualLayout
from sosproj.validation import check_fraction

__all__ = ["extrapolate_unmeasured", "ipf_fit", "ipf_table", "maximal_sets", "top_residual"]


#: Fewest IPF cycles before :func:`ipf_fit`'s ``stall`` test applies.
STALL_MIN_CYCLES = 10
#: The ``stall`` of the extrapolation's IPF (:func:`extrapolate_unmeasured`).
EXTRAPOLATION_STALL = 0.01


def maximal_sets(sets: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The non-empty sets of a family not contained in another of its sets."""
    ss = [set(A) for A in sets]
    return [A for A, a in zip(sets, ss, strict=True) if A and not any(a < b for b in ss)]


def ipf_table(shape: tuple[int, ...], margins: dict[tuple[int, ...], np.ndarray], total: float, *,
              tol: float = 1e-10, max_cycles: int = 200) -> np.ndarray:
    r"""The maximum-entropy table of ``shape`` with the given margins (axes -> non-negative table), by
    iterative proportional fitting from the uniform table of ``total``.

    Each cycle rescales the table to every margin in turn (cells of a zero margin cell become 0); for a
    decomposable family of margins (e.g. disjoint ones: the product :math:`\prod_i T_i / m^{k-1}`) one
    cycle is exact. Stops when every margin matches to ``tol * total`` (or after ``max_cycles``).

    >>> t = ipf_table((2, 3), {(0,): np.array([1.0, 3.0]), (1,): np.array([2.0, 1.0, 1.0])}, 4.0)
    >>> t.tolist()
    [[0.5, 0.25, 0.25], [1.5, 0.75, 0.75]]
    """
    return ipf_fit(shape, margins, total, tol=tol, max_cycles=max_cycles)[0]


def ipf_fit(shape: tuple[int, ...], margins: dict[tuple[int, ...], np.ndarray], total: float, *,
            tol: float = 1e-10, max_cycles: int = 200, stall: float | None = None) -> tuple[np.ndarray, float]:
    """:func:`ipf_table` and the largest gap between the returned table's margins and the targets (a gap
    above ``tol * total`` after ``max_cycles``: the margins admit no table, or only one with zero cells
    that IPF approaches slowly).

    ``stall``: also stop, from cycle :data:`STALL_MIN_CYCLES` on, when a cycle shrank the largest gap by
    less than this fraction (the margins admit no table: IPF settles at a positive gap). Measured on the
    extrapolated tables of adult and titanic (``benchmarks/results_marginals/adult_v10/``): the tables
    whose IPF converged shrank their gap by at least 7% a cycle (largest ratio 0.93 after cycle 5), the
    tables that stalled by less than 0.05% (adult epsilon 1: gap 552 of 48,842 after 50, 200, 1,000 and
    5,000 cycles alike).
    """
    if stall is not None:
        stall = check_fraction(stall, "stall", 0.01)
    T = np.full(shape, float(total) / max(math.prod(shape), 1))
    nd = len(shape)
    scale = max(float(total), 1.0)
    drops = {axes: tuple(a for a in range(nd) if a not in axes) for axes in margins}
    # the factor's broadcast shape (np.expand_dims(f, drop) without its per-call argument handling)
    bshape = {axes: tuple(1 if a in drops[axes] else shape[a] for a in range(nd)) for axes in margins}
    prev = np.inf
    for cycle in range(1, max_cycles + 1):
        worst = 0.0
        for axes, target in margins.items():
            drop = drops[axes]
            cur = T.sum(axis=drop) if drop else T
            worst = max(worst, float(np.abs(cur - target).max()))
            with np.errstate(divide="ignore", invalid="ignore"):
                f = np.where(cur > 0, target / np.where(cur > 0, cur, 1.0), 0.0)
            T *= f.reshape(bshape[axes])                       # the same products, in place
        if worst <= tol * scale or (stall is not None and cycle >= STALL_MIN_CYCLES and worst > (1.0 - stall) * prev):
            break
        prev = worst
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


def extrapolate_unmeasured(layout: ResidualLayout, r: np.ndarray, measured: Sequence[tuple[int, ...]],
                           tables: dict[tuple[int, ...], np.ndarray]) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Fill the unmeasured residual sets of ``r`` (module docstring, steps 1-2); returns the new residuals.

    ``r``: residuals with the measured sets and the total filled; ``measured``: the measured closure sets
    (closed under subsets); ``tables``: the non-negative tables of the maximal measured sets.
    ``info["ipf_unmet"]``: the largest margin gap of any maximum-entropy table, relative to the total.
    """
    total = float(r[layout.empty_pos])
    out = np.array(r, dtype=float)
    mset = {tuple(A) for A in measured}
    unmeasured = [A for A in layout.residual_sets if A and A not in mset]
    if not unmeasured:
        return out, {"ipf_unmet": 0.0}
    measured = list(measured)
    msets = [set(A) for A in measured]
    useen = [set(A) for A in unmeasured]
    acc = {A: np.zeros(tuple(layout.sizes[x] for x in A)) for A in unmeasured}
    cnt = dict.fromkeys(unmeasured, 0)
    worst = 0.0
    for W in layout.workload:
        wset = set(W)
        if not any(a <= wset for a in useen):
            continue                             # every subset measured: nothing to extrapolate
        margins: dict[tuple[int, ...], np.ndarray] = {}
        for B in maximal_sets([M for M, b in zip(measured, msets, strict=True) if b <= wset]):
            Mx = next(M for M in tables if set(B) <= set(M))
            margins[tuple(W.index(x) for x in B)] = _margin(tables[Mx], Mx, B)
        T, gap = ipf_fit(tuple(layout.sizes[x] for x in W), margins, total, stall=EXTRAPOLATION_STALL)
        worst = max(worst, gap / max(total, 1.0))
        for A, a in zip(unmeasured, useen, strict=True):
            if a <= wset:
                acc[A] += top_residual(_margin(T, W, A))
                cnt[A] += 1
    for A in unmeasured:
        layout.residual(out, A)[...] = acc[A] / max(cnt[A], 1)
    return out, {"ipf_unmet": worst}

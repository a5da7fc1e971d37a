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

**The tree prior** (``prior="tree"`` / ``"tree-pairs"``, opt-in through the reconstruction option
``options["extrapolation"]``; session 38). Step 1 fits every ``W`` on its own, from the uniform table: for
a triple ``(a, c, e)`` whose pairs are all unmeasured, ``a`` and ``c`` come out independent even where the
measured pairs ``(a, b)`` and ``(b, c)`` say they are strongly dependent through ``b``. Private-PGM
(R. McKenna, D. Sheldon, G. Miklau, "Graphical-model based estimation and inference for differential
privacy", ICML 2019) fits one global model, where such dependence propagates. The tree prior is the
cheapest global model: the Chow-Liu tree (C. K. Chow, C. N. Liu, "Approximating discrete probability
distributions with dependence trees", IEEE Trans. Inf. Theory 14, 1968) of the measured pairs, i.e. the
maximum-weight spanning forest (Kruskal) of the graph of measured pairs with weight the mutual information
of each pair's reconstructed (non-negative, normalized) table, and the distribution

.. math:: Q(x) = \prod_v P(x_v) \prod_{(u,v) \in \text{tree}} \frac{P(x_u, x_v)}{P(x_u) P(x_v)}

(:class:`TreePrior`). Its margin on any ``W`` is the einsum, over the nodes of the Steiner subtree of ``W``
in each component (rooted at a node of ``W``), of the root's table times ``P(child | parent)`` along the
subtree's edges, with output ``W``; components multiply (:meth:`TreePrior.marginal`); the joint domain is
never built. Step 1 then starts IPF from ``Q_W`` (scaled to the total, mixed with a :data:`PRIOR_FLOOR`
share of the uniform table so that no cell is stuck at zero) instead of the uniform table: IPF from a start
``Q`` converges to the I-projection of ``Q`` onto the tables with the given margins, the table of least
``KL(. || Q)`` among them (I. Csiszar, "I-divergence geometry of probability distributions and minimization
problems", Ann. Probab. 3, 1975); from the uniform start that is the maximum-entropy table. ``"tree"``
uses the prior for every ``W`` with an unmeasured subset; ``"tree-pairs"`` only for the ``W`` containing
an unmeasured set of size 2 (a ``W`` whose only unmeasured subset is ``W`` itself keeps the uniform
start). Even where every pair inside ``W`` is measured, ``Q_W`` can differ from the pairwise family's
maximum-entropy table (a Steiner node outside ``W`` makes it a mixture), so ``"tree"`` changes those
``W`` too. Measured in ``benchmarks/results_marginals/tree38/``.

Post-processing only: the inputs are the reconstructed measured tables, the released total and the
public layout. References: W. E. Deming, F. F. Stephan (1940) for IPF.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sosproj.data.residuals import ResidualLayout
from sosproj.validation import check_fraction

__all__ = ["EXTRAPOLATION_PRIORS", "TreePrior", "chow_liu_forest", "extrapolate_unmeasured", "ipf_fit", "ipf_table",
           "maximal_sets", "mutual_information", "top_residual"]


#: Fewest IPF cycles before :func:`ipf_fit`'s ``stall`` test applies.
STALL_MIN_CYCLES = 10
#: The ``stall`` of the extrapolation's IPF (:func:`extrapolate_unmeasured`).
EXTRAPOLATION_STALL = 0.01
#: The starts of the extrapolation's IPF (:func:`extrapolate_unmeasured`'s ``prior``; module docstring).
EXTRAPOLATION_PRIORS = ("uniform", "tree", "tree-pairs")
#: The uniform share mixed into the tree prior's start (relative to the total): no cell stuck at zero.
PRIOR_FLOOR = 1e-9


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
            tol: float = 1e-10, max_cycles: int = 200, stall: float | None = None,
            init: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """:func:`ipf_table` and the largest gap between the returned table's margins and the targets (a gap
    above ``tol * total`` after ``max_cycles``: the margins admit no table, or only one with zero cells
    that IPF approaches slowly).

    ``stall``: also stop, from cycle :data:`STALL_MIN_CYCLES` on, when a cycle shrank the largest gap by
    less than this fraction (the margins admit no table: IPF settles at a positive gap). Measured on the
    extrapolated tables of adult and titanic (``benchmarks/results_marginals/adult_v10/``): the tables
    whose IPF converged shrank their gap by at least 7% a cycle (largest ratio 0.93 after cycle 5), the
    tables that stalled by less than 0.05% (adult epsilon 1: gap 552 of 48,842 after 50, 200, 1,000 and
    5,000 cycles alike).

    ``init``: the start (a non-negative table of ``shape``; default the uniform table of ``total``): IPF
    then converges to the table with the margins closest to ``init`` in KL divergence (Csiszar 1975); a zero
    cell of ``init`` stays zero.
    """
    if stall is not None:
        stall = check_fraction(stall, "stall", 0.01)
    if init is None:
        T = np.full(shape, float(total) / max(math.prod(shape), 1))
    else:
        T = np.array(init, dtype=float)
        if T.shape != tuple(shape) or not np.all(T >= 0):
            raise ValueError(f"init must be a non-negative table of shape {tuple(shape)}")
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


def mutual_information(T: np.ndarray) -> float:
    """The mutual information (nats) of the two axes of a non-negative 2-way table (normalized here; 0 for a
    zero table)."""
    P = np.maximum(np.asarray(T, dtype=float), 0.0)
    tot = float(P.sum())
    if tot <= 0:
        return 0.0
    P = P / tot
    outer = np.outer(P.sum(axis=1), P.sum(axis=0))
    nz = P > 0
    return float(np.sum(P[nz] * np.log(P[nz] / outer[nz])))


def chow_liu_forest(weights: dict[tuple[int, int], float], n: int) -> list[tuple[int, int]]:
    """The maximum-weight spanning forest (Kruskal) of the graph on ``n`` nodes with the given edge weights
    (ties broken by the edge); edges of weight ``<= 0`` are left out (they would add nothing to the tree model)."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    out = []
    for (u, v), w in sorted(weights.items(), key=lambda t: (-t[1], t[0])):
        if w <= 0:
            break
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            out.append((u, v))
    return out


class TreePrior:
    r"""The Chow-Liu tree model of a family of non-negative tables (module docstring, "The tree prior").

    ``sizes``: the attributes' public sizes; ``tables``: non-negative tables keyed by their attribute sets
    (sorted tuples, e.g. the reconstructed maximal measured sets). The 1-way tables ``P(x_v)`` are the
    margins of the first table containing ``v`` (uniform where none does), the pair tables those of every
    pair inside a table; the tree is :func:`chow_liu_forest` of the pairs' :func:`mutual_information`.
    Only the tables are read.
    """

    def __init__(self, sizes: Sequence[int], tables: dict[tuple[int, ...], np.ndarray]):
        self.sizes = tuple(int(s) for s in sizes)
        n = len(self.sizes)
        self.one: dict[int, np.ndarray] = {}
        pairs: dict[tuple[int, int], np.ndarray] = {}
        for M in sorted(tables, key=lambda A: (-len(A), A)):
            T = np.maximum(np.asarray(tables[M], dtype=float), 0.0)
            for v in M:
                if v not in self.one:
                    self.one[v] = _normalized(_margin(T, M, (v,)), self.sizes[v])
            for u, v in itertools.combinations(M, 2):
                if (u, v) not in pairs:
                    pairs[(u, v)] = _margin(T, M, (u, v))
        for v in range(n):
            self.one.setdefault(v, np.full(self.sizes[v], 1.0 / self.sizes[v]))
        self.edges = chow_liu_forest({p: mutual_information(T) for p, T in pairs.items()}, n)
        self.pair_tables = {p: pairs[p] for p in self.edges}
        self._conditionals: dict[tuple[int, int], np.ndarray] = {}
        self.adj: dict[int, list[int]] = {v: [] for v in range(n)}
        for u, v in self.edges:
            self.adj[u].append(v)
            self.adj[v].append(u)

    def conditional(self, parent: int, child: int) -> np.ndarray:
        """``P(x_child | x_parent)`` (rows: the parent's values) from the edge's pair table; a parent value of
        zero mass gets the child's 1-way table. Computed once per directed edge (every workload set whose Steiner
        subtree holds the edge reads it)."""
        cached = self._conditionals.get((parent, child))
        if cached is not None:
            return cached
        key = (parent, child) if parent < child else (child, parent)
        T = self.pair_tables[key]
        T = T if parent < child else T.T
        rows = T.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            C = np.where(rows > 0, T / np.where(rows > 0, rows, 1.0), self.one[child][None, :])
        self._conditionals[(parent, child)] = C
        return C

    def marginal(self, W: Sequence[int]) -> np.ndarray:
        """``Q``'s margin on the attributes ``W`` (a table over ``W`` in its order, summing to 1)."""
        W = tuple(int(x) for x in W)
        done: set[int] = set()
        parts: list[tuple[tuple[int, ...], np.ndarray]] = []
        for r in W:
            if r in done:
                continue
            # BFS from r over the component: parents, then prune to the Steiner subtree of W's nodes in it
            par = {r: -1}
            order = [r]
            for x in order:
                for y in self.adj[x]:
                    if y not in par:
                        par[y] = x
                        order.append(y)
            comp_w = [x for x in W if x in par]
            done.update(comp_w)
            keep = {r}
            for x in comp_w:
                while x not in keep:
                    keep.add(x)
                    x = par[x]
            nodes = [x for x in order if x in keep]
            if len(comp_w) == 1:
                parts.append(((r,), self.one[r]))
                continue
            idx = {x: i for i, x in enumerate(nodes)}
            ops: list[Any] = [self.one[r], [idx[r]]]
            for x in nodes[1:]:
                ops += [self.conditional(par[x], x), [idx[par[x]], idx[x]]]
            out_axes = [idx[x] for x in comp_w]
            parts.append((tuple(comp_w), np.einsum(*ops, out_axes, optimize="greedy")))
        Q = np.ones(())
        axes: list[int] = []
        for ax, t in parts:
            Q = np.multiply.outer(Q, t)
            axes += list(ax)
        Q = np.transpose(Q, [axes.index(x) for x in W])
        s = float(Q.sum())
        return Q / s if s > 0 else np.full(Q.shape, 1.0 / max(Q.size, 1))


def _normalized(t: np.ndarray, size: int) -> np.ndarray:
    s = float(t.sum())
    return t / s if s > 0 else np.full(size, 1.0 / size)


def extrapolate_unmeasured(layout: ResidualLayout, r: np.ndarray, measured: Sequence[tuple[int, ...]],
                           tables: dict[tuple[int, ...], np.ndarray], *, prior: str = "uniform"
                           ) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Fill the unmeasured residual sets of ``r`` (module docstring, steps 1-2); returns the new residuals.

    ``prior`` (:data:`EXTRAPOLATION_PRIORS`): the start of each ``W``'s IPF: ``"uniform"`` (the maximum-entropy
    table), ``"tree"`` (the :class:`TreePrior` of ``tables`` for every ``W``) or ``"tree-pairs"`` (the tree
    prior only for the ``W`` containing an unmeasured pair); module docstring, "The tree prior".

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
    if prior not in EXTRAPOLATION_PRIORS:
        raise ValueError(f"prior must be one of {EXTRAPOLATION_PRIORS}; got {prior!r}")
    tree = TreePrior(layout.sizes, tables) if prior != "uniform" else None
    upairs = [a for a in useen if len(a) == 2]
    n_prior = 0
    for W in layout.workload:
        wset = set(W)
        if not any(a <= wset for a in useen):
            continue                             # every subset measured: nothing to extrapolate
        margins: dict[tuple[int, ...], np.ndarray] = {}
        for B in maximal_sets([M for M, b in zip(measured, msets, strict=True) if b <= wset]):
            Mx = next(M for M in tables if set(B) <= set(M))
            margins[tuple(W.index(x) for x in B)] = _margin(tables[Mx], Mx, B)
        shape = tuple(layout.sizes[x] for x in W)
        init = None
        if tree is not None and (prior == "tree" or any(a <= wset for a in upairs)):
            init = total * ((1.0 - PRIOR_FLOOR) * tree.marginal(W) + PRIOR_FLOOR / max(math.prod(shape), 1))
            n_prior += 1
        T, gap = ipf_fit(shape, margins, total, stall=EXTRAPOLATION_STALL, init=init)
        worst = max(worst, gap / max(total, 1.0))
        for A, a in zip(unmeasured, useen, strict=True):
            if a <= wset:
                acc[A] += top_residual(_margin(T, W, A))
                cnt[A] += 1
    for A in unmeasured:
        layout.residual(out, A)[...] = acc[A] / max(cnt[A], 1)
    info: dict[str, Any] = {"ipf_unmet": worst}
    if tree is not None:
        info["tree_prior"] = {"edges": len(tree.edges), "prior_sets": n_prior}
    return out, info

"""Reference implementation of :class:`sosproj.data.residuals.ResidualLayout` (kept for tests).

The per-pattern loops of the layout as of commit 9602d59 (before the batched mode-by-mode transforms),
copied unchanged below the module docstring: ``tests/test_residuals_batched.py`` checks the batched
operators against it to ~1e-12 relative on random small domains.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.data.residuals import closure
from sosproj.errors import InvalidParameterError
from sosproj.validation import check_memory

__all__ = ["ReferenceLayout"]


@dataclass
class _Group:
    """Sets of one shape: their positions in the owner's list and their slice of the flat vector."""

    shape: tuple[int, ...]
    members: np.ndarray        # positions in the set list
    start: int
    stop: int


class ReferenceLayout:
    """Index of the residuals of a workload's closure and of the workload's tables.

    Parameters
    ----------
    sizes : number of values per attribute (the domain).
    workload : attribute sets (each sorted, distinct attributes); the tables to reconstruct.

    Flat vectors: a *residual vector* holds ``c_A`` of every closure set ``A`` (group by group),
    a *table vector* every workload table. :meth:`forward` is ``B``, :meth:`adjoint` is
    ``B^T`` followed by the projection onto the residual subspace, :attr:`normal_diag` is ``d``.
    """

    def __init__(self, sizes: Sequence[int], workload: Sequence[Sequence[int]]) -> None:
        self.sizes = tuple(int(s) for s in sizes)
        wl = []
        for w in workload:
            t = tuple(sorted(int(a) for a in w))
            if len(set(t)) != len(t) or any(not 0 <= a < len(self.sizes) for a in t):
                raise InvalidParameterError("workload sets must name distinct attributes of the domain")
            wl.append(t)
        self.workload = list(dict.fromkeys(wl))
        self.residual_sets = closure(self.workload)
        self.res_pos = {s: i for i, s in enumerate(self.residual_sets)}
        self.res_groups, self.res_group_of, self.res_local = self._group(self.residual_sets)
        self.res_size = self.res_groups[-1].stop if self.res_groups else 0
        i0 = self.res_pos[()]
        #: Position of the empty set's entry (the total) in a flat residual vector.
        self.empty_pos = int(self.res_groups[int(self.res_group_of[i0])].start + self.res_local[i0])
        self.tab_groups, self.tab_group_of, self.tab_local = self._group(self.workload)
        self.tab_size = self.tab_groups[-1].stop if self.tab_groups else 0
        # for every table group and every sub-pattern of its axes: the residual group + local indices
        self._patterns: list[list[tuple[tuple[int, ...], int, np.ndarray, float, tuple[int, ...]]]] = []
        flat_pos: list[np.ndarray] = []
        for g in self.tab_groups:
            j = len(g.shape)
            pats = []
            for mask in range(2**j):
                keep = tuple(p for p in range(j) if mask >> p & 1)
                drop = tuple(p for p in range(j) if not mask >> p & 1)
                subs = [tuple(self.workload[t][p] for p in keep) for t in g.members]
                rg = self.res_group_of[self.res_pos[subs[0]]]
                loc = np.array([self.res_local[self.res_pos[s]] for s in subs], dtype=np.int64)
                scale = 1.0 / math.prod(g.shape[p] for p in drop)
                view_shape = tuple(g.shape[p] if mask >> p & 1 else 1 for p in range(j))
                pats.append((keep, rg, loc, scale, view_shape))
                # flat positions in the residual vector of the summed-out table entries (for bincount)
                RG = self.res_groups[rg]
                per = math.prod(g.shape[p] for p in keep)
                flat_pos.append((RG.start + loc[:, None] * per + np.arange(per)[None, :]).ravel())
            self._patterns.append(pats)
        self._scatter = np.concatenate(flat_pos) if flat_pos else np.zeros(0, dtype=np.int64)
        d = np.zeros(len(self.residual_sets))
        for pats in self._patterns:
            for _keep, rg, loc, scale, _vs in pats:
                np.add.at(d, self.res_groups[rg].members[loc], scale)
        #: ``d_A`` per closure set (``B^T B`` is diagonal in the residual basis).
        self.normal_diag_sets = d
        self.normal_diag = self.expand(d)

    def _group(self, sets: list[tuple[int, ...]]) -> tuple[list[_Group], np.ndarray, np.ndarray]:
        by_shape: dict[tuple[int, ...], list[int]] = {}
        for i, s in enumerate(sets):
            by_shape.setdefault(tuple(self.sizes[a] for a in s), []).append(i)
        groups, group_of, local = [], np.zeros(len(sets), dtype=np.int64), np.zeros(len(sets), dtype=np.int64)
        start = 0
        for shape, mem in by_shape.items():
            stop = start + len(mem) * math.prod(shape)
            groups.append(_Group(shape, np.array(mem, dtype=np.int64), start, stop))
            group_of[mem] = len(groups) - 1
            local[mem] = np.arange(len(mem))
            start = stop
        return groups, group_of, local

    # -- sizes ------------------------------------------------------------------------------
    @classmethod
    def checked(cls, sizes: Sequence[int], workload: Sequence[Sequence[int]]) -> ReferenceLayout:
        """Build after refusing (instantly, from sizes alone) a workload that would exhaust memory."""
        cells = sum(math.prod(sizes[a] for a in w) for w in workload)
        check_memory(8.0 * 12 * 2 * cells,
                     f"the {len(workload)} workload tables ({cells:,} cells) and their residuals")
        return cls(sizes, workload)

    # -- views ------------------------------------------------------------------------------
    def res_view(self, r: np.ndarray, g: int) -> np.ndarray:
        """``(count, *shape)`` view of residual group ``g`` of a flat residual vector."""
        G = self.res_groups[g]
        return r[G.start:G.stop].reshape((len(G.members), *G.shape))

    def tab_view(self, t: np.ndarray, g: int) -> np.ndarray:
        """``(count, *shape)`` view of table group ``g`` of a flat table vector."""
        G = self.tab_groups[g]
        return t[G.start:G.stop].reshape((len(G.members), *G.shape))

    def residual(self, r: np.ndarray, s: tuple[int, ...]) -> np.ndarray:
        """``c_A`` of one closure set (a view)."""
        i = self.res_pos[s]
        return self.res_view(r, int(self.res_group_of[i]))[self.res_local[i]]

    def tables(self, t: np.ndarray) -> list[np.ndarray]:
        """The workload tables of a flat table vector, in workload order (views)."""
        return [self.tab_view(t, int(self.tab_group_of[i]))[self.tab_local[i]] for i in range(len(self.workload))]

    def expand(self, per_set: np.ndarray) -> np.ndarray:
        """A per-closure-set quantity repeated over every entry of that set's residual."""
        out = np.empty(self.res_size)
        for G in self.res_groups:
            out[G.start:G.stop] = np.repeat(np.asarray(per_set)[G.members], math.prod(G.shape))
        return out

    def sum_per_set(self, r: np.ndarray) -> np.ndarray:
        """Sum of the entries of each closure set's residual (e.g. of squared norms)."""
        out = np.zeros(len(self.residual_sets))
        for g, G in enumerate(self.res_groups):
            v = self.res_view(r, g)
            out[G.members] = v.reshape(len(G.members), -1).sum(axis=1)
        return out

    # -- linear maps --------------------------------------------------------------------------
    def center(self, r: np.ndarray) -> np.ndarray:
        """Project every residual onto its subspace: apply ``P_i`` along each of its axes (in place)."""
        for g in range(len(self.res_groups)):
            v = self.res_view(r, g)
            for ax in range(1, v.ndim):
                v -= v.mean(axis=ax, keepdims=True)
        return r

    def forward(self, r: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
        """``B r``: the workload tables (flat) of the residuals ``r`` (the empty set's entry is the total).

        (``out``: the buffer argument of the batched layout, added later; written with zeros first.)"""
        t = np.zeros(self.tab_size) if out is None else out
        t[...] = 0.0
        for g, pats in enumerate(self._patterns):
            T = self.tab_view(t, g)
            for _keep, rg, loc, scale, vs in pats:
                R = self.res_view(r, rg)[loc]
                T += (scale * R).reshape((len(loc), *vs))
        return t

    def adjoint(self, t: np.ndarray, *, project: bool = True) -> np.ndarray:
        """``B^T t`` followed (``project=True``) by the projection onto the residual subspaces."""
        parts = []
        for g, pats in enumerate(self._patterns):
            T = self.tab_view(t, g)
            for keep, _rg, _loc, scale, _vs in pats:
                drop = tuple(p + 1 for p in range(T.ndim - 1) if p not in keep)
                parts.append((T.sum(axis=drop) * scale).ravel() if drop else T.ravel())
        r = np.bincount(self._scatter, weights=np.concatenate(parts), minlength=self.res_size)
        return self.center(r) if project else r

    def residuals_of_tables(self, tabs: Sequence[np.ndarray]) -> np.ndarray:
        """Residuals ``c_A`` of consistent workload tables (one table per workload set, workload order).

        Each ``c_A`` is computed from the first workload table containing ``A`` by summing out the
        other axes and centering. The empty set's entry is the table total.
        """
        r = np.zeros(self.res_size)
        for g, pats in enumerate(self._patterns):
            G = self.tab_groups[g]
            T = np.stack([np.asarray(tabs[i], dtype=float) for i in G.members])
            for keep, rg, loc, _scale, _vs in pats:
                drop = tuple(p + 1 for p in range(T.ndim - 1) if p not in keep)
                self.res_view(r, rg)[loc] = T.sum(axis=drop) if drop else T
        return self.center(r)

    def marginal(self, r: np.ndarray, attrs: tuple[int, ...]) -> np.ndarray:
        """The table of a closure set ``attrs`` (sorted) from residuals: ``sum_{B subset attrs} c_B / prod``."""
        j = len(attrs)
        shape = tuple(self.sizes[a] for a in attrs)
        out = np.zeros(shape)
        for mask in range(2**j):
            keep = tuple(attrs[p] for p in range(j) if mask >> p & 1)
            scale = 1.0 / math.prod(shape[p] for p in range(j) if not mask >> p & 1)
            vs = tuple(shape[p] if mask >> p & 1 else 1 for p in range(j))
            out += scale * self.residual(r, keep).reshape(vs)
        return out

    def info(self) -> dict[str, Any]:
        """Sizes of the layout (public)."""
        return {"n_tables": len(self.workload), "n_cells": int(self.tab_size),
                "n_residual_sets": len(self.residual_sets), "n_residual_entries": int(self.res_size)}

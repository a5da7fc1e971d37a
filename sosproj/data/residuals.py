r"""ResidualPlanner's residual basis for the marginals of a categorical workload.

For an attribute with :math:`n_i` values let :math:`P_i = I - \tfrac1{n_i}\mathbf 1\mathbf 1^\top`
(centering). Every marginal table :math:`\mu_W` of an attribute set :math:`W` splits
orthogonally into *residuals* (Xiao, Kifer et al., "An optimal and scalable matrix mechanism
for noisy marginals under convex loss functions", NeurIPS 2023):

.. math:: \mu_W = \sum_{A\subseteq W} \Bigl(c_A \otimes \bigotimes_{i\in W\setminus A}
          \tfrac1{n_i}\mathbf 1\Bigr),\qquad c_A = \Bigl(\bigotimes_{i\in A} P_i\Bigr)\mu_A ,

with :math:`c_\emptyset = m`. ``c_A`` is stored with one axis per attribute of ``A`` (``prod n_i``
entries spanning a subspace of dimension ``prod (n_i - 1)``); its Euclidean norm equals that of
RP's residual :math:`(\otimes_{i\in A} Q_i)\mu_A` for any orthonormal basis :math:`Q_i` of
:math:`\mathbf 1^\perp`, so isotropic Gaussian noise projected by :math:`\otimes P_i` is exactly
RP's measurement noise (covariance :math:`\sigma_A^2 \otimes_{i\in A} \mathrm{Sub}_i\mathrm{Sub}_i^\top`
in RP's ``Sub`` basis, up to the invertible change of basis). For binary attributes ``c_A`` is the
Fourier (parity) coefficient: ``c_A[b] = (-1)^{|b|} 2^{-|A|} m f_A`` with
:math:`f_A = \mathbb E\prod_{i\in A}(1 - 2x_i)`.

The operator :math:`B: c \mapsto (\mu_W)_{W}` from the residuals of the workload's closure to the
workload's tables has *diagonal* normal operator (the components are orthogonal):
:math:`B^\top B = \mathrm{diag}(d_A)`, :math:`d_A = \sum_{W\supseteq A}\prod_{i\in W\setminus A} 1/n_i`.
:class:`ResidualLayout` implements ``B``, ``B^T`` and ``d`` on flat vectors, grouping tables and
residuals of equal shape so that each operator is a few vectorized numpy calls per group. The
joint domain is never materialized.

*Batched transforms.* Stack, for a table ``W = (i_1..i_j)``, every ``c_A`` (``A subset W``) into one
*extended* tensor ``E_W`` with ``n_i + 1`` entries per axis, index ``n_i`` meaning "attribute ``i``
not in ``A``": ``E_W[a_1..a_j]`` with ``a_p = n_{i_p}`` on the axes outside ``A`` holds ``c_A``. Then
``B`` is a Kronecker product of per-attribute factors, applied mode by mode,

.. math:: \mu_W = \bigl(F_{i_1}\otimes\cdots\otimes F_{i_j}\bigr) E_W,\qquad
          F_i = \bigl[\, I_{n_i} \;\big|\; \tfrac1{n_i}\mathbf 1 \,\bigr]\in\mathbb R^{n_i\times(n_i+1)},

and ``B^T`` followed by the projection is the product of :math:`G_i = [P_i \,;\, \tfrac1{n_i}\mathbf 1^\top]`
(:math:`G_i t = (t - \bar t,\ \bar t)` along the axis: centre, and append the mean): the projection
:math:`\otimes_{i\in A} P_i` commutes with the sum over tables, so it is applied table by table.
One gather (``E_W`` of every table from the flat residual vector) or one ``bincount`` (the
contributions of every table back to the residuals) plus ``j`` slice-and-broadcast steps per group of
equal-shape tables replace the ``2^j`` pattern loops (``docs``: issue 14's adult speed-up; the
per-pattern implementation is kept as the test reference ``tests/residuals_reference.py``).

>>> lay = ResidualLayout((2, 3), [(0, 1)])
>>> [lay.residual_sets[i] for i in range(len(lay.residual_sets))]
[(), (0,), (1,), (0, 1)]
>>> t = np.arange(6.0).reshape(2, 3)
>>> r = lay.residuals_of_tables([t])
>>> bool(np.allclose(lay.tables(lay.forward(r))[0], t))
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sosproj.errors import InvalidParameterError
from sosproj.validation import check_memory

__all__ = ["ResidualLayout", "closure", "all_k_way"]


def all_k_way(n: int, k: int) -> list[tuple[int, ...]]:
    """All attribute sets of size exactly ``k`` (the default workload), lexicographic."""
    return list(itertools.combinations(range(n), k))


def closure(workload: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Every subset of every workload set (the empty set included), by size then lexicographic.

    >>> closure([(0, 2)])
    [(), (0,), (2,), (0, 2)]
    """
    out: set[tuple[int, ...]] = set()
    for w in workload:
        for j in range(len(w) + 1):
            out.update(itertools.combinations(w, j))
    return sorted(out, key=lambda s: (len(s), s))


@dataclass
class _Group:
    """Sets of one shape: their positions in the owner's list and their slice of the flat vector."""

    shape: tuple[int, ...]
    members: np.ndarray        # positions in the set list
    start: int
    stop: int


class ResidualLayout:
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
        # extended tensors E_W (module docstring): per table group its shape and slice of the flat
        # stack of every E_W, and the residual-vector position of every entry of that stack
        self._ext: list[tuple[tuple[int, ...], int, int]] = []
        ext_pos: list[np.ndarray] = []
        e_start = 0
        for g in self.tab_groups:
            j = len(g.shape)
            ext_shape = (len(g.members), *(n + 1 for n in g.shape))
            E = np.empty(ext_shape, dtype=np.intp)
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
                RG = self.res_groups[rg]
                per = math.prod(g.shape[p] for p in keep)
                pos = RG.start + loc[:, None] * per + np.arange(per)[None, :]
                corner = tuple(slice(0, g.shape[p]) if mask >> p & 1 else g.shape[p] for p in range(j))
                E[(slice(None), *corner)] = pos.reshape((len(loc), *(g.shape[p] for p in keep)))
            self._patterns.append(pats)
            ext_pos.append(E.ravel())
            self._ext.append((ext_shape, e_start, e_start + E.size))
            e_start += E.size
        self._ext_pos = np.concatenate(ext_pos) if ext_pos else np.zeros(0, dtype=np.intp)
        self._res_views = [(G.start, G.stop, (len(G.members), *G.shape)) for G in self.res_groups]
        self._marginal_plans: dict[tuple[int, ...], tuple[tuple[int, ...], list]] = {}
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
    def checked(cls, sizes: Sequence[int], workload: Sequence[Sequence[int]]) -> ResidualLayout:
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
    def center(self, r: np.ndarray, *, max_order: int | None = None) -> np.ndarray:
        """Project every residual onto its subspace: apply ``P_i`` along each of its axes (in place).

        ``max_order``: only the residuals of sets with at most that many attributes (the others are
        left as they are; for a vector known to be zero on them, e.g. the one-hot moment adjoint).
        """
        add = np.add.reduce
        for start, stop, shape in self._res_views:
            if max_order is not None and len(shape) - 1 > max_order:
                continue
            v = r[start:stop].reshape(shape)
            for ax in range(1, v.ndim):
                v -= add(v, axis=ax, keepdims=True) * (1.0 / shape[ax])
        return r

    def forward(self, r: np.ndarray) -> np.ndarray:
        """``B r``: the workload tables (flat) of the residuals ``r`` (the empty set's entry is the total).

        Mode by mode on the extended tensors: ``E <- E[.., :n, ..] + E[.., n, ..] / n`` along each axis
        (the factor :math:`F_i` of the module docstring).
        """
        ext = np.asarray(r)[self._ext_pos]
        t = np.empty(self.tab_size)
        for G, (shape, a, b) in zip(self.tab_groups, self._ext):
            E = ext[a:b].reshape(shape)
            last = len(shape) - 1
            if last == 0:
                t[G.start:G.stop] = E
            for ax in range(1, len(shape)):
                n = shape[ax] - 1
                head = (slice(None),) * ax
                out = t[G.start:G.stop].reshape((shape[0], *(m - 1 for m in shape[1:]))) if ax == last else None
                E = np.add(E[(*head, slice(0, n))], E[(*head, slice(n, n + 1))] * (1.0 / n), out=out)
        return t

    def adjoint(self, t: np.ndarray, *, project: bool = True) -> np.ndarray:
        """``B^T t`` followed (``project=True``) by the projection onto the residual subspaces.

        Mode by mode on every table: along each axis append the mean and (``project``) centre,
        ``T <- (T - mean, mean)`` (the factor :math:`G_i`), then add the extended tensors into the
        residual vector (one ``bincount``).
        """
        t = np.asarray(t)
        buf = np.empty(self._ext_pos.size)
        for G, (shape, a, b) in zip(self.tab_groups, self._ext):
            E = t[G.start:G.stop].reshape((shape[0], *(n - 1 for n in shape[1:])))
            for ax in range(1, len(shape)):
                mu = np.add.reduce(E, axis=ax, keepdims=True) * (1.0 / E.shape[ax])
                out_shape = (*E.shape[:ax], E.shape[ax] + 1, *E.shape[ax + 1:])
                out = buf[a:b].reshape(shape) if ax == len(shape) - 1 else np.empty(out_shape)
                head = (slice(None),) * ax
                if project:
                    np.subtract(E, mu, out=out[(*head, slice(0, E.shape[ax]))])
                else:
                    out[(*head, slice(0, E.shape[ax]))] = E
                out[(*head, slice(E.shape[ax], None))] = mu
                E = out
            if len(shape) == 1:
                buf[a:b] = E.ravel()
        return np.bincount(self._ext_pos, weights=buf, minlength=self.res_size)

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
        plan = self._marginal_plans.get(attrs)
        if plan is None:
            plan = self._marginal_plans[attrs] = self._marginal_plan(attrs)
        shape, terms = plan
        out = np.zeros(shape)
        for a, b, vs, scale in terms:
            out += scale * r[a:b].reshape(vs)
        return out

    def _marginal_plan(self, attrs: tuple[int, ...]) -> tuple[tuple[int, ...], list[tuple[int, int, tuple, float]]]:
        """Slices, broadcast shapes and scales of the ``2^j`` residuals making up the table of ``attrs``."""
        j = len(attrs)
        shape = tuple(self.sizes[a] for a in attrs)
        terms = []
        for mask in range(2**j):
            keep = tuple(attrs[p] for p in range(j) if mask >> p & 1)
            i = self.res_pos[keep]
            G = self.res_groups[int(self.res_group_of[i])]
            per = math.prod(G.shape)
            a = G.start + int(self.res_local[i]) * per
            scale = 1.0 / math.prod(shape[p] for p in range(j) if not mask >> p & 1)
            terms.append((a, a + per, tuple(shape[p] if mask >> p & 1 else 1 for p in range(j)), scale))
        return shape, terms

    def info(self) -> dict[str, Any]:
        """Sizes of the layout (public)."""
        return {"n_tables": len(self.workload), "n_cells": int(self.tab_size),
                "n_residual_sets": len(self.residual_sets), "n_residual_entries": int(self.res_size)}

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

from sosproj.data import fused_kernel as _fk
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


#: Whether :meth:`ResidualLayout.normal_apply` uses the compiled kernel where it applies
#: (:attr:`ResidualLayout.compiled_normal`); ``False`` forces the numpy form (same numbers up to round-off).
COMPILED_NORMAL = True

#: Table ranges per thread of the threaded dual step (:meth:`ResidualLayout.dual_step` with ``threads > 1``): the
#: threads take the next free range until none is left, so a thread the machine delays takes fewer (the ranges are
#: fixed by the layout and the thread count; which thread runs one changes no number).
THREAD_RANGES = 4

#: Fewest table cells for which the dual step uses more than one thread: below it a step takes well under a
#: millisecond (it sits in cache) and handing ranges to a second thread, twice a step, costs more than it saves.
THREAD_MIN_CELLS = 500_000

#: ``_NEWAXIS[a]`` indexes an array with a new axis of length 1 at position ``a`` (``np.expand_dims``
#: without its per-call argument normalization, which cost ~10% of the transforms on adult's 182 shapes).
_NEWAXIS = tuple((slice(None),) * a + (None,) for a in range(65))


def _fold(Z: np.ndarray, ax: int) -> np.ndarray:
    """The factor :math:`F = [I \\mid \\tfrac1n \\mathbf 1]` along axis ``ax`` (length ``n + 1`` -> ``n``)."""
    n = Z.shape[ax] - 1
    head = (slice(None),) * ax
    return Z[(*head, slice(0, n))] + Z[(*head, slice(n, n + 1))] * (1.0 / n)


def _centre(X: np.ndarray, ax: int) -> np.ndarray:
    """``P = I - 11^T/n`` along axis ``ax`` (a new array)."""
    return X - np.add.reduce(X, axis=ax, keepdims=True) * (1.0 / X.shape[ax])


def _extend(X: np.ndarray, ax: int, project: bool) -> np.ndarray:
    """The factor :math:`G = [P ; \\tfrac1n\\mathbf 1^\\top]` along axis ``ax`` (``[I ; ..]`` unless
    ``project``): length ``n`` -> ``n + 1``, the mean appended."""
    n = X.shape[ax]
    mu = np.add.reduce(X, axis=ax, keepdims=True) * (1.0 / n)
    out = np.empty((*X.shape[:ax], n + 1, *X.shape[ax + 1:]))
    head = (slice(None),) * ax
    if project:
        np.subtract(X, mu, out=out[(*head, slice(0, n))])
    else:
        out[(*head, slice(0, n))] = X
    out[(*head, slice(n, n + 1))] = mu
    return out


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
        # extended tensors E_W (module docstring), split into the full block c_W (a slice of the
        # residual vector when the group's sets are stored in table order, else an index array) and
        # the j faces E_W[:n_0, .., :n_{p-1}, n_p, ext_{p+1}, ..] (the residual positions of their
        # entries, stacked over every group in ``_face_pos``)
        self._full: list[slice | np.ndarray] = []
        self._faces: list[list[tuple[tuple[int, ...], int, int]]] = []
        face_pos: list[np.ndarray] = []
        f_start = 0
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
                if mask == 2**j - 1:
                    flat = pos.ravel()
                    lo = int(flat[0])
                    aligned = bool(np.array_equal(flat, np.arange(lo, lo + flat.size)))
                    self._full.append(slice(lo, lo + flat.size) if aligned else flat)
            self._patterns.append(pats)
            faces = []
            for p in range(j):
                Ep = E[(slice(None), *(slice(0, g.shape[q]) for q in range(p)), g.shape[p])]
                faces.append((Ep.shape, f_start, f_start + Ep.size))
                face_pos.append(Ep.ravel())
                f_start += Ep.size
            self._faces.append(faces)
        self._face_pos = np.concatenate(face_pos) if face_pos else np.zeros(0, dtype=np.intp)
        # whether a full block also receives faces of other tables (then it is added, not written)
        in_face = np.zeros(self.res_size, dtype=bool)
        in_face[self._face_pos] = True
        self._full_shared = [bool(np.any(in_face[f])) for f in self._full]
        self._res_views = [(G.start, G.stop, (len(G.members), *G.shape)) for G in self.res_groups]
        self._marginal_plans: dict[tuple[int, ...], tuple[tuple[int, ...], list]] = {}
        self._mean_vectors: dict[int, np.ndarray] = {}
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

    def forward(self, r: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
        """``B r``: the workload tables (flat) of the residuals ``r`` (the empty set's entry is the total).

        ``out``: a float array of ``tab_size`` entries to write into (no new table vector; the
        iterative projections reuse one buffer).

        Per group of equal-shape tables: ``mu_W = c_W + sum_p`` (face ``p`` folded along the axes after
        ``p`` by :math:`F_q`, divided by ``n_p``, broadcast along axis ``p``); see the module docstring.
        """
        r = np.asarray(r)
        faces = r[self._face_pos]
        t = np.empty(self.tab_size) if out is None else out
        for G, full, fcs in zip(self.tab_groups, self._full, self._faces):
            S = G.shape
            tv = t[G.start:G.stop].reshape((len(G.members), *S))
            c = r[full].reshape(tv.shape)
            if not S:
                tv[...] = c
            for p, (shape, a, b) in enumerate(fcs):
                Z = faces[a:b].reshape(shape)
                for q in range(p + 1, len(S)):          # axis q of the table is axis q of Z
                    Z = _fold(Z, q)
                Z = (Z * (1.0 / S[p]))[_NEWAXIS[p + 1]]
                if p == 0:
                    np.add(c, Z, out=tv)
                else:
                    tv += Z
        return t

    def adjoint(self, t: np.ndarray, *, project: bool = True) -> np.ndarray:
        """``B^T t`` followed (``project=True``) by the projection onto the residual subspaces.

        Per group of equal-shape tables ``T``, with ``m_p`` the mean of ``T`` along axis ``p``: the full
        block ``(otimes_q P_q) T = T - sum_p (P_{q>p} m_p)`` broadcast along ``p``, and face ``p`` is
        ``(otimes_{q<p} P_q) m_p`` extended by :math:`G_q` along the axes after ``p``; the faces of every
        table are added into the residual vector by one ``bincount``.  ``project=False``: no ``P``.
        """
        t = np.asarray(t)
        faces = np.empty(self._face_pos.size)
        blocks = []
        for G, fcs in zip(self.tab_groups, self._faces):
            S = G.shape
            T = t[G.start:G.stop].reshape((len(G.members), *S))
            corr = []
            for p, (_shape, a, b) in enumerate(fcs):
                if p == len(S) - 1 and S[p] > 1:            # the last axis: a matrix-vector product
                    m = (T.reshape(-1, S[p]) @ self._mean_vector(S[p])).reshape(T.shape[:-1])
                else:
                    m = np.add.reduce(T, axis=p + 1) * (1.0 / S[p])
                face = m                                      # axis q != p of T is axis q + (q < p) of m
                if project:
                    for q in range(p):
                        face = _centre(face, q + 1)
                for q in range(p + 1, len(S)):
                    face = _extend(face, q, project)
                faces[a:b] = face.ravel()
                if project:
                    for q in range(p + 1, len(S)):
                        m = _centre(m, q)
                    corr.append(m[_NEWAXIS[p + 1]])
            blocks.append((T, corr))
        r = np.bincount(self._face_pos, weights=faces, minlength=self.res_size)
        for (T, corr), full, shared in zip(blocks, self._full, self._full_shared):
            if not shared and isinstance(full, slice):       # write straight into the residual vector
                X = r[full].reshape(T.shape)
                if corr:
                    np.subtract(T, corr[0], out=X)
                else:
                    X[...] = T
                for c in corr[1:]:
                    X -= c
            else:
                X = T - corr[0] if corr else T.copy()
                for c in corr[1:]:
                    X -= c
                r[full] += X.ravel()                          # each set is the full block of <= 1 table
        return r

    @property
    def fused_normal(self) -> bool:
        """Whether :meth:`normal_apply` can skip the full blocks: every table's full block (the residual of
        its own attribute set) lies in no other table (true for any workload of sets of one size, e.g. all
        ``k``-way marginals, and for the maximal sets of a family), and no table is the empty set."""
        f = getattr(self, "_fused_flag", None)
        if f is None:
            f = self._fused_flag = not any(self._full_shared) and all(G.shape for G in self.tab_groups)
        return f

    @property
    def compiled_normal(self) -> bool:
        """Whether :meth:`normal_apply` runs the compiled kernel (:mod:`sosproj.data.fused_kernel`): numba is
        installed, :data:`COMPILED_NORMAL` is on, the layout is :attr:`fused_normal` and no table has more than
        :data:`~sosproj.data.fused_kernel.MAX_ORDER` attributes."""
        return COMPILED_NORMAL and self._kernel_applies()

    def kernel_ready(self) -> bool:
        """:attr:`compiled_normal`'s conditions without the switch, and the kernel built (numba imported now)."""
        return self._kernel_applies() and _fk.available()

    def _kernel_applies(self) -> bool:
        """Numba is installed and the layout is :attr:`fused_normal` with tables of at most ``MAX_ORDER`` axes."""
        f = getattr(self, "_kernel_flag", None)
        if f is None:
            f = self._kernel_flag = _fk.HAVE_NUMBA and all(len(G.shape) <= _fk.MAX_ORDER for G in self.tab_groups)
        return f and self.fused_normal

    def normal_apply(self, y: np.ndarray, inv_w: np.ndarray, *, alpha: float = 0.0, beta: float = 1.0,
                     shift: np.ndarray | None = None, out: np.ndarray | None = None,
                     compiled: bool | None = None) -> np.ndarray:
        r"""``alpha y + beta N y + shift`` in table space, with :math:`N = B\,\mathrm{diag}(w^{-1})\,P\,B^\top`
        (``inv_w``: a flat residual-space vector, constant on each set, e.g. ``1 / w_A`` with 0 on the empty set).

        The same numbers as ``alpha * y + beta * forward(inv_w * adjoint(y)) + shift`` (the composition, used
        when :attr:`fused_normal` is false), fused: when a table's full block ``c_W`` lies in no other table,
        ``adjoint`` writes it as :math:`(\otimes_q P_q) T_W = T_W - \sum_p \mathrm{corr}_p` and ``forward``
        reads it straight back, so table ``W`` of the result is

        .. math:: (\alpha + \beta w_W^{-1})\,T_W + \sum_p \beta\,\bigl(\mathrm{face}_p - w_W^{-1}\mathrm{corr}_p\bigr)

        with ``corr_p`` (the centred means of :meth:`adjoint`) and ``face_p`` (the lower residuals' broadcast
        terms of :meth:`forward`) both broadcast along axis ``p`` of the table: ``j`` broadcast passes per
        table of ``j`` attributes instead of the full-block round trip (and no pass over ``T_W`` at all when
        :math:`\alpha + \beta w_W^{-1} = 0`, the table metric's projected-gradient step). The lower residuals
        go through a ``bincount`` over their own positions only. Used by the LNN dual
        (:meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual`).

        ``compiled`` (default :attr:`compiled_normal`): the same map by one compiled loop over all tables
        (:func:`sosproj.data.fused_kernel.fused_normal`; the numpy form above makes a few calls per group of
        equal-shape tables, whose overhead dominated on Adult's 182 shapes); equal up to round-off.
        """
        y = np.asarray(y, dtype=float)
        inv_w = np.asarray(inv_w, dtype=float)
        t = np.empty(self.tab_size) if out is None else out
        if compiled is None:
            compiled = self.compiled_normal and _fk.available()
        elif compiled and not (self._kernel_applies() and _fk.available()):
            raise InvalidParameterError("the compiled normal map needs numba and a fused layout of tables "
                                        f"with at most {_fk.MAX_ORDER} attributes")
        if compiled:
            tinfo, koff, iw_tab_pos, low, n_scratch = self._kernel_plan()
            ybuf = np.ascontiguousarray(y)
            sh = np.ascontiguousarray(shift, dtype=float) if shift is not None else ybuf
            _fk.kernels()(ybuf, inv_w[low], tinfo, koff, inv_w[iw_tab_pos], float(alpha), float(beta), sh,
                             shift is not None, t, np.empty(low.size), np.empty(n_scratch), 0, t, 0.0, -np.inf)
            return t
        if not self.fused_normal:
            v = self.adjoint(y)
            v *= inv_w
            self.forward(v, out=t)
            t *= beta
            if alpha:
                t += alpha * y
            if shift is not None:
                t += shift
            return t
        low, face_idx, full_first = self._fused_plan()
        faces = np.empty(self._face_pos.size)
        groups = []
        for G, fcs in zip(self.tab_groups, self._faces):
            S = G.shape
            T = y[G.start:G.stop].reshape((len(G.members), *S))
            corr = []
            for p, (_shape, a, b) in enumerate(fcs):          # as in adjoint(project=True)
                if p == len(S) - 1 and S[p] > 1:
                    m = (T.reshape(-1, S[p]) @ self._mean_vector(S[p])).reshape(T.shape[:-1])
                else:
                    m = np.add.reduce(T, axis=p + 1) * (1.0 / S[p])
                face = m
                for q in range(p):
                    face = _centre(face, q + 1)
                for q in range(p + 1, len(S)):
                    face = _extend(face, q, True)
                faces[a:b] = face.ravel()
                for q in range(p + 1, len(S)):
                    m = _centre(m, q)
                corr.append(m[_NEWAXIS[p + 1]])
            groups.append((T, corr))
        v_low = np.bincount(face_idx, weights=faces, minlength=low.size)
        v_low *= inv_w[low]
        v_faces = v_low[face_idx]                             # as in forward, the lower residuals only
        for g, (G, fcs) in enumerate(zip(self.tab_groups, self._faces)):
            S = G.shape
            T, corr = groups[g]
            iw = inv_w[full_first[g]].reshape((len(G.members),) + (1,) * len(S))
            o = t[G.start:G.stop].reshape(T.shape)
            for p, (shape, a, b) in enumerate(fcs):
                Z = v_faces[a:b].reshape(shape)
                for q in range(p + 1, len(S)):
                    Z = _fold(Z, q)
                E = Z[_NEWAXIS[p + 1]] * (beta / S[p]) - (beta * iw) * corr[p]
                if p == 0:
                    if shift is not None:
                        np.add(shift[G.start:G.stop].reshape(T.shape), E, out=o)
                    else:
                        o[...] = E
                else:
                    o += E
            coef = alpha + beta * iw
            if np.any(coef != 0.0):
                o += coef * T
        return t

    def _fused_plan(self) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        """Cached: the residual positions of the lower sets (every face position), each face position's index
        among them, and per table group the flat position of each member's first full-block entry."""
        plan = getattr(self, "_fused_cache", None)
        if plan is None:
            low, face_idx = np.unique(self._face_pos, return_inverse=True)
            full_first = []
            for G, full in zip(self.tab_groups, self._full):
                per = math.prod(G.shape)
                if isinstance(full, slice):
                    full_first.append(full.start + per * np.arange(len(G.members)))
                else:
                    full_first.append(np.asarray(full)[::per])
            plan = self._fused_cache = (low, face_idx.astype(np.intp), full_first)
        return plan

    def dual_step(self, y: np.ndarray, lam: np.ndarray, lam_new: np.ndarray, inv_w: np.ndarray, step: float,
                  shift: np.ndarray, momentum: float, *, threads: int = 1) -> bool:
        r"""One projected-gradient step with momentum of the LNN dual, compiled, in place (needs
        :attr:`compiled_normal`): ``lam_new = max(y + step (shift' - N y), 0)`` as :meth:`normal_apply` with
        ``alpha = 1, beta = -step`` and ``shift`` (``= -step B c(0)``), then the restart test of O'Donoghue & Candes
        :math:`(y - \lambda_{new})^\top(\lambda_{new} - \lambda) > 0`, and ``y <- lam_new`` on a restart, else
        ``y <- lam_new + momentum (lam_new - lam)``: the steps of
        :meth:`~sosproj.sdp.marginal_admm.MarginalProjector.solve_dual`'s numpy loop, in the same pass over each
        table as the map's second half (:func:`sosproj.data.fused_kernel.fused_normal`, ``mode=1``). Returns
        whether it restarted.

        ``threads`` > 1: the tables split in that many ranges of about equal cells, run at once
        (:func:`sosproj.data.fused_kernel.fused_normal_threaded`): the same numbers bit for bit."""
        tinfo, koff, iw_tab_pos, low, n_scratch = self._kernel_plan()
        args = (y, inv_w[low], tinfo, koff, inv_w[iw_tab_pos], 1.0, -float(step), shift, True,
                lam_new, np.empty(low.size), np.empty(n_scratch), 1, lam, float(momentum), -np.inf)
        tp = self._thread_plan(threads)
        dot = _fk.kernels()(*args) if tp is None else _fk.fused_normal_threaded(*tp, *args, threads=threads)
        if dot > 0.0:
            y[...] = lam_new
            return True
        return False

    def normal_min(self, y: np.ndarray, inv_w: np.ndarray, shift: np.ndarray, scale: np.ndarray, *,
                   below: float | None = None, threads: int = 1) -> float:
        """``min_i scale_i (N y + shift)_i`` (``N`` as in :meth:`normal_apply`, ``alpha = 0, beta = 1``) by the compiled
        kernel without writing the tables (needs :attr:`compiled_normal`): the LNN dual's stopping trigger.

        ``below``: the caller only asks whether the minimum is below this number; the scan then stops at the end of
        the first table row where some cell's value is below it and returns that value (``< below``, ``>=`` the
        minimum: the same answer to that question, after reading part of the tables; a trigger that fails early in
        the tables skips most of the second pass). When the minimum is not below ``below`` the scan is complete and
        the exact minimum is returned. ``None``: always the exact minimum. ``threads`` as in :meth:`dual_step` (the
        same value returned: the ranges' scans combined in the serial scan's order)."""
        tinfo, koff, iw_tab_pos, low, n_scratch = self._kernel_plan()
        stop = -np.inf if below is None else float(below)
        args = (y, inv_w[low], tinfo, koff, inv_w[iw_tab_pos], 0.0, 1.0, shift, True,
                y, np.empty(low.size), np.empty(n_scratch), 2, scale, 0.0, stop)
        tp = self._thread_plan(threads)
        return float(_fk.kernels()(*args) if tp is None else _fk.fused_normal_threaded(*tp, *args, threads=threads))

    def kernel_threads_used(self, threads: int) -> int:
        """The threads :meth:`dual_step` / :meth:`normal_min` actually use when asked for ``threads``: 1 below
        :data:`THREAD_MIN_CELLS` cells or with fewer tables than threads, else ``threads``."""
        threads = int(threads)
        if threads <= 1 or self.tab_size < THREAD_MIN_CELLS or len(self.workload) < threads:
            return 1
        return threads

    def _thread_plan(self, threads: int) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray] | None:
        """``None`` for one thread (or fewer tables than threads, or fewer cells than :data:`THREAD_MIN_CELLS`); else
        what
        :func:`~sosproj.data.fused_kernel.fused_normal_threaded` needs besides the map's arguments: the worker pool
        (:func:`sosproj.threads.worker_pool`), the table ranges' bounds (contiguous ranges of about equal cells:
        fixed by the layout and ``threads``), the restart test's row buffer and each table's offset in it
        (cached per thread count, but the pool; the buffer is reused: one call at a time per layout)."""
        threads = self.kernel_threads_used(threads)
        if threads <= 1:
            return None
        tinfo = self._kernel_plan()[0]
        cache = getattr(self, "_thread_cache", None)
        if cache is None:
            cache = self._thread_cache = {}
        from sosproj.threads import worker_pool

        plan = cache.get(threads)
        if plan is None:
            rows = np.where(tinfo[:, 0] == 1, tinfo[:, 1], tinfo[:, 1] * tinfo[:, 2])
            poff = np.zeros(tinfo.shape[0], dtype=np.int64)
            np.cumsum(rows[:-1], out=poff[1:])
            cum = np.cumsum(tinfo[:, 1] * tinfo[:, 2] * tinfo[:, 3])
            nr = THREAD_RANGES * threads
            cuts = np.searchsorted(cum, cum[-1] * np.arange(1, nr) / nr, side="right")
            bounds = np.unique(np.concatenate([[0], np.clip(cuts, 1, tinfo.shape[0] - 1), [tinfo.shape[0]]]))
            plan = cache[threads] = (bounds.astype(np.int64), np.empty(int(rows.sum())), poff)
        return (worker_pool(threads), *plan)       # the pool asked each time: a larger one may have replaced it

    def _kernel_plan(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """Cached index arrays of the compiled normal map (:func:`sosproj.data.fused_kernel.fused_normal`): per
        table ``(j, n0, n1, n2, table offset, scratch offset)``, the offset of each proper subset (bit mask of
        the table's axes) among the lower residual entries ``low`` (:meth:`_fused_plan`), the position of the
        table's own set in a residual vector, ``low``, and the scratch size."""
        plan = getattr(self, "_kernel_cache", None)
        if plan is None:
            low, _face_idx, full_first = self._fused_plan()
            ntab = len(self.workload)
            tinfo = np.zeros((ntab, 6), dtype=np.int64)
            koff = np.full((ntab, 8), -1, dtype=np.int64)
            iw_pos = np.zeros(ntab, dtype=np.int64)
            t = 0
            so = 0
            for g, (G, pats) in enumerate(zip(self.tab_groups, self._patterns)):
                S = G.shape
                j = len(S)
                per = math.prod(S)
                nsc = sum(math.prod(S[p] for p in range(j) if mask >> p & 1) for mask in range(2**j - 1))
                rows = slice(t, t + len(G.members))
                tinfo[rows, 0] = j
                for p in range(3):
                    tinfo[rows, 1 + p] = S[p] if p < j else 1
                tinfo[rows, 4] = G.start + per * np.arange(len(G.members))
                tinfo[rows, 5] = so + nsc * np.arange(len(G.members))
                iw_pos[rows] = full_first[g]
                for mask, (keep, rg, loc, _scale, _vs) in enumerate(pats[:-1]):
                    RG = self.res_groups[rg]
                    size = math.prod(S[p] for p in keep)
                    koff[rows, mask] = np.searchsorted(low, RG.start + loc * size)
                t += len(G.members)
                so += nsc * len(G.members)
            plan = self._kernel_cache = (tinfo, koff, iw_pos, low.astype(np.int64), so)
        return plan

    def _mean_vector(self, n: int) -> np.ndarray:
        """The vector ``1/n`` of length ``n`` (cached: the adjoint's last-axis means are products with it)."""
        v = self._mean_vectors.get(n)
        if v is None:
            v = self._mean_vectors[n] = np.full(n, 1.0 / n)
        return v

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

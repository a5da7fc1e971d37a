r"""Contingency tables of attribute sets, their Moebius/Fourier measurement maps,
and the diagonal Fourier form of their least squares.

Conventions
-----------
* Data ``D`` is an ``(m, n)`` binary matrix (rows = records, columns = attributes).
* The *table* of an attribute set ``T = (t_0 < ... < t_{s-1})`` is the array of
  shape ``(2,) * s`` whose entry ``[v_0, ..., v_{s-1}]`` counts the rows with
  ``x[t_j] = v_j`` for every ``j``; flattened in C order, cell ``a`` has index
  ``sum_j v_j 2^(s-1-j)``.  A *workload* is a list of attribute sets; its cells are
  concatenated (:class:`TableLayout`).
* *Subset moments* ``y_S = E[prod_{i in S} x_i]`` (fractions of rows) for
  ``S`` of size ``<= d`` are indexed by :class:`SubsetIndex` (by size, then
  lexicographically; ``y_{()} = 1``).
* *Fourier moments* ``f_U = E[prod_{i in U} z_i]`` with ``z_i = 1 - 2 x_i`` in
  ``{-1, +1}``.  They are related to subset moments by the unitriangular maps
  ``f_U = sum_{S subset U} (-2)^{|S|} y_S`` and
  ``y_S = 2^{-|S|} sum_{U subset S} (-1)^{|U|} f_U``.

The measurement map (Moebius inversion)
---------------------------------------
Cell ``A`` (the set of positions with value 1) of the table of ``T`` is the
fraction of rows with ``x_i = 1`` on ``A`` and ``x_i = 0`` on ``T \ A``:

.. math::  p_T(A) = \sum_{A \subseteq U \subseteq T} (-1)^{|U| - |A|} y_U ,

:func:`measurement_matrix` assembles these signed sums as a sparse matrix ``B``
with ``cells = B @ y``.  In Fourier moments the same cell is
``2^{-|T|} sum_{U subset T} chi_U(a) f_U`` with a scaled Hadamard matrix, so

.. math::  \sum_T w_T \lVert p_T - c_T \rVert^2
           = \sum_U a_U (f_U - g_U)^2 + \text{const},\qquad
           a_U = \sum_{T \ni U} w_T 2^{-|T|},

a *diagonal* least squares (:func:`fourier_form`).  Both the SoS projection of
:class:`sosproj.sdp.cube_tables_admm.CubeTablesProjector` and
:func:`sosproj.sdp.polytope_fista.polytope_least_squares` use this reduction.

Examples
--------
>>> import numpy as np
>>> D = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1]])
>>> layout = TableLayout.from_workload([(0, 2)], n=3)
>>> contingency_tables(D, layout)[0]
array([[0, 1],
       [0, 2]])
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sps

from sosproj.errors import InputTypeError, InvalidInputError, InvalidParameterError
from sosproj.validation import check_binary_matrix, check_int, check_memory

# ------------------------------------------------------------------ workloads


def attribute_sets(n: int, k: int) -> np.ndarray:
    """All ``C(n, k)`` attribute sets of size ``k`` as sorted rows, lexicographic.

    >>> attribute_sets(4, 2).tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=0, maximum=n)
    count = math.comb(n, k)
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    out = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), k)),
                      dtype=np.int64, count=count * k)
    return out.reshape(count, k)


@dataclass(frozen=True)
class TableLayout:
    """Where each table of a workload sits in the concatenated cell vector.

    ``sets[j]`` is the sorted attribute tuple of table ``j``; its ``2**len(sets[j])``
    cells occupy ``offsets[j]:offsets[j+1]`` of a cell vector.

    >>> lay = TableLayout.from_workload([(1, 0), (2,)], n=3)
    >>> lay.sets, lay.n_cells
    (((0, 1), (2,)), 6)
    """

    sets: tuple[tuple[int, ...], ...]
    offsets: np.ndarray
    n: int

    @classmethod
    def from_workload(cls, workload: Iterable[Sequence[int]] | np.ndarray, n: int) -> TableLayout:
        """Validate a user workload (sorted, duplicate-free, attributes in ``[0, n)``)."""
        n = check_int(n, "n", minimum=1)
        if isinstance(workload, (str, bytes)):
            raise InputTypeError("workload must be a list of attribute sets (tuples of ints)")
        try:
            raw = list(workload)
        except TypeError as exc:
            raise InputTypeError("workload must be a list of attribute sets (tuples of ints)") from exc
        if not raw:
            raise InvalidParameterError("workload must contain at least one attribute set")
        sets: list[tuple[int, ...]] = []
        for s in raw:
            if isinstance(s, (int, np.integer)):
                s = (s,)
            try:
                t = tuple(check_int(v, "workload attribute", minimum=0, maximum=n - 1) for v in s)
            except TypeError as exc:
                raise InputTypeError("workload entries must be tuples of attribute indices") from exc
            if not t:
                raise InvalidParameterError("workload attribute sets must be non-empty")
            if len(set(t)) != len(t):
                raise InvalidParameterError("workload attribute sets must not repeat an attribute")
            sets.append(tuple(sorted(t)))
        if len(set(sets)) != len(sets):
            raise InvalidParameterError("workload must not list the same attribute set twice")
        sizes = np.array([len(s) for s in sets])
        offsets = np.concatenate([[0], np.cumsum(2 ** sizes)]).astype(np.int64)
        return cls(tuple(sets), offsets, n)

    @classmethod
    def all_k_way(cls, n: int, k: int) -> TableLayout:
        """Layout of all ``C(n, k)`` tables of size ``k``.

        >>> TableLayout.all_k_way(5, 3).n_tables
        10
        """
        k = check_int(k, "k", minimum=1, maximum=check_int(n, "n", minimum=1))
        sets = tuple(map(tuple, attribute_sets(n, k).tolist()))
        offsets = np.arange(len(sets) + 1, dtype=np.int64) * 2 ** k
        return cls(sets, offsets, n)

    @property
    def n_tables(self) -> int:
        """Number of tables."""
        return len(self.sets)

    @property
    def n_cells(self) -> int:
        """Total number of cells (length of a cell vector)."""
        return int(self.offsets[-1])

    @property
    def max_size(self) -> int:
        """Largest attribute-set size."""
        return max(len(s) for s in self.sets)

    def groups(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """``(size, table ids, attribute array)`` for each distinct table size."""
        sizes = np.array([len(s) for s in self.sets])
        out = []
        for s in np.unique(sizes):
            ids = np.flatnonzero(sizes == s)
            out.append((int(s), ids, np.array([self.sets[i] for i in ids], dtype=np.int64)))
        return out

    def split(self, cells: np.ndarray) -> list[np.ndarray]:
        """Cut a cell vector into one ``(2,) * |T|`` array per table.

        >>> TableLayout.from_workload([(0,)], n=1).split(np.array([3., 1.]))[0]
        array([3., 1.])
        """
        cells = np.asarray(cells)
        if cells.shape != (self.n_cells,):
            raise InvalidInputError(f"cells must have shape ({self.n_cells},); got {cells.shape}")
        return [cells[self.offsets[j]:self.offsets[j + 1]].reshape((2,) * len(s))
                for j, s in enumerate(self.sets)]

    def table_index(self, attrs: Sequence[int]) -> int:
        """Position of the table of ``attrs`` (any order) in the workload."""
        key = tuple(sorted(int(a) for a in attrs))
        try:
            return self.sets.index(key)
        except ValueError:
            raise InvalidParameterError("attrs is not an attribute set of this workload") from None


# ------------------------------------------------------------------ subsets


class SubsetIndex:
    """All subsets of ``{0..n-1}`` of size ``<= max_size``: by size, then lexicographic.

    ``members`` is an ``(N, max_size)`` array padded with ``-1``; ``sizes`` the
    sizes; :meth:`lookup` maps sorted member rows (padded) to positions.

    >>> idx = SubsetIndex(3, 2)
    >>> len(idx), idx.lookup(np.array([[0, 2]])).tolist()
    (7, [5])
    """

    def __init__(self, n: int, max_size: int) -> None:
        self.n = check_int(n, "n", minimum=1)
        self.max_size = check_int(max_size, "max_size", minimum=0, maximum=self.n)
        if (self.n + 1) ** max(self.max_size, 1) >= 2**62:
            raise InvalidParameterError("n and max_size too large for the subset index")
        count = sum(math.comb(self.n, s) for s in range(self.max_size + 1))
        check_memory(count * (self.max_size + 2) * 8 * 3, "the subset-moment index")
        blocks, sizes = [], []
        for s in range(self.max_size + 1):
            a = attribute_sets(self.n, s)
            pad = np.full((a.shape[0], self.max_size), -1, dtype=np.int64)
            pad[:, :s] = a
            blocks.append(pad)
            sizes.append(np.full(a.shape[0], s, dtype=np.int64))
        self.members = np.concatenate(blocks) if blocks else np.zeros((1, 0), dtype=np.int64)
        self.sizes = np.concatenate(sizes)
        keys = self.encode(self.members)
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]
        self.starts = np.concatenate([[0], np.cumsum([math.comb(self.n, s)
                                                      for s in range(self.max_size + 1)])])

    def __len__(self) -> int:
        return int(self.sizes.shape[0])

    def encode(self, rows: np.ndarray) -> np.ndarray:
        """Integer key of sorted member rows padded with -1 (unique per subset)."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.ndim != 2:
            raise InvalidInputError("rows must be a 2-D integer array")
        key = np.zeros(rows.shape[0], dtype=np.int64)
        base = self.n + 1
        for j in range(rows.shape[1]):
            key = key * base + (rows[:, j] + 1)
        for _ in range(rows.shape[1], self.max_size):
            key = key * base
        return key

    def lookup(self, rows: np.ndarray) -> np.ndarray:
        """Positions of subsets given as sorted rows padded with -1 (may be narrower)."""
        keys = self.encode(rows)
        pos = np.searchsorted(self._sorted, keys)
        pos = np.minimum(pos, len(self._sorted) - 1)
        if not np.all(self._sorted[pos] == keys):
            raise InvalidParameterError("a requested subset is not in the index (too large?)")
        return self._order[pos]

    def position(self, attrs: Sequence[int]) -> int:
        """Position of one subset given in any order."""
        t = sorted(int(a) for a in attrs)
        if len(t) > self.max_size or len(set(t)) != len(t) or any(a < 0 or a >= self.n for a in t):
            raise InvalidParameterError("attrs must be distinct attributes in [0, n), at most max_size")
        return int(self.lookup(np.array([t + [-1] * (self.max_size - len(t))]))[0])

    def tuples(self, max_size: int | None = None) -> tuple[tuple[int, ...], ...]:
        """The subsets as tuples (optionally only those of size ``<= max_size``)."""
        stop = len(self) if max_size is None else int(self.starts[min(max_size, self.max_size) + 1])
        return tuple(tuple(int(v) for v in r[:s]) for r, s in zip(self.members[:stop], self.sizes[:stop]))


def _sub_masks(s: int) -> np.ndarray:
    """Boolean (2^s, s) array: row u lists the positions in bitmask u (position j <-> bit s-1-j)."""
    u = np.arange(2 ** s)
    return ((u[:, None] >> (s - 1 - np.arange(s))[None, :]) & 1).astype(bool)


def _gather_subsets(attrs: np.ndarray, masks: np.ndarray, width: int) -> np.ndarray:
    """For each row of ``attrs`` (t, s) and each mask (q, s): the padded sub-row, shape (t, q, width)."""
    t, s = attrs.shape
    q = masks.shape[0]
    out = np.full((t, q, width), -1, dtype=np.int64)
    for u in range(q):
        cols = np.flatnonzero(masks[u])
        out[:, u, :cols.size] = attrs[:, cols]
    return out


# ------------------------------------------------------------------ tables from data


def contingency_tables(D: Any, layout: TableLayout, *, chunk_rows: int | None = None,
                       flat: bool = False) -> list[np.ndarray] | np.ndarray:
    """Exact contingency tables (counts) of every attribute set of ``layout``.

    Streams over row chunks (dense or scipy.sparse input), so memory is
    ``O(chunk_rows * n_tables)`` whatever ``m``.  Returns one int64 array of
    shape ``(2,) * |T|`` per table, or the concatenated cell vector with
    ``flat=True``.

    >>> D = np.array([[1, 1], [0, 1], [1, 1]])
    >>> contingency_tables(D, TableLayout.all_k_way(2, 2), flat=True).tolist()
    [0, 1, 0, 2]
    """
    X = check_binary_matrix(D, "D")
    m, n = X.shape
    if n != layout.n:
        raise InvalidInputError(f"D must have {layout.n} columns (the workload's n); got {n}")
    cells = np.zeros(layout.n_cells, dtype=np.int64)
    groups = layout.groups()
    if chunk_rows is None:
        chunk_rows = max(1, min(m, 4_000_000 // max(1, layout.n_tables)))
    chunk_rows = check_int(chunk_rows, "chunk_rows", minimum=1)
    for start in range(0, m, chunk_rows):
        block = X[start:start + chunk_rows]
        block = block.toarray() if sps.issparse(block) else np.asarray(block)
        block = block.astype(np.int64, copy=False)
        for s, ids, attrs in groups:
            code = np.zeros((block.shape[0], ids.size), dtype=np.int64)
            for j in range(s):
                code = (code << 1) | block[:, attrs[:, j]]
            flat_idx = (layout.offsets[ids][None, :] + code).ravel()
            cells += np.bincount(flat_idx, minlength=layout.n_cells)
    return cells if flat else layout.split(cells)


def worst_case_neighbour(row: np.ndarray) -> np.ndarray:
    """The replacement row that moves every table: the complement of ``row``.

    Replacing a row ``x`` by ``1 - x`` changes every table of every workload in
    exactly two cells by one count each, attaining the sensitivity bound
    ``sqrt(2 * n_tables)`` of :func:`table_sensitivity`.

    >>> worst_case_neighbour(np.array([1, 0, 1])).tolist()
    [0, 1, 0]
    """
    r = np.asarray(row)
    return (1 - r).astype(r.dtype)


def table_sensitivity(layout: TableLayout) -> float:
    r"""l2 sensitivity of the concatenated count tables under replace-one adjacency.

    Replacing one row removes one count from one cell and adds one count to one
    cell of each table (the same cell when the two rows agree on ``T``), so each
    table moves by at most ``sqrt(2)`` in l2 and the whole vector by
    ``sqrt(2 * n_tables)``; the bound is attained by :func:`worst_case_neighbour`.

    >>> round(table_sensitivity(TableLayout.all_k_way(10, 3)), 6)
    15.491933
    """
    return math.sqrt(2.0 * layout.n_tables)


# ------------------------------------------------------------------ measurement maps


def measurement_matrix(layout: TableLayout, index: SubsetIndex) -> sps.csr_matrix:
    r"""Sparse ``B`` with ``cells = B @ y``: cells of every table as signed sums of subset moments.

    Moebius inversion: cell ``A`` of the table of ``T`` is
    ``sum_{A <= U <= T} (-1)^{|U|-|A|} y_U`` (fractions; multiply by ``m`` for counts).
    ``index`` must contain every subset of every table (``max_size >= layout.max_size``).

    >>> lay = TableLayout.from_workload([(0, 1)], n=2)
    >>> measurement_matrix(lay, SubsetIndex(2, 2)).toarray().astype(int).tolist()
    [[1, -1, -1, 1], [0, 0, 1, -1], [0, 1, 0, -1], [0, 0, 0, 1]]
    """
    if index.max_size < layout.max_size:
        raise InvalidParameterError("index.max_size must be at least the largest table size")
    rows, cols, vals = [], [], []
    for s, ids, attrs in layout.groups():
        masks = _sub_masks(s)                              # cell a and subset u share bit conventions
        cnt = masks.sum(1)
        sub = masks[:, None, :] <= masks[None, :, :]       # A subset U  (cells x U)
        contained = np.all(sub, axis=2)
        sign = np.where(contained, (-1.0) ** (cnt[None, :] - cnt[:, None]), 0.0)
        a_idx, u_idx = np.nonzero(contained)
        col_sub = index.lookup(_gather_subsets(attrs, masks, index.max_size).reshape(-1, index.max_size))
        col_sub = col_sub.reshape(ids.size, 2 ** s)
        rows.append((layout.offsets[ids][:, None] + a_idx[None, :]).ravel())
        cols.append(col_sub[:, u_idx].ravel())
        vals.append(np.broadcast_to(sign[a_idx, u_idx], (ids.size, a_idx.size)).ravel())
    B = sps.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                       shape=(layout.n_cells, len(index)))
    B.sum_duplicates()
    return B


def _inclusion_matrix(index: SubsetIndex, max_size: int, coef) -> sps.csr_matrix:
    """Sparse (N_out, N) matrix, row S: sum over U subset S of coef(|S|, |U|) at column U."""
    rows, cols, vals = [], [], []
    for s in range(min(max_size, index.max_size) + 1):
        lo, hi = int(index.starts[s]), int(index.starts[s + 1])
        attrs = index.members[lo:hi, :s]
        masks = _sub_masks(s)
        cnt = masks.sum(1)
        sub_pos = index.lookup(_gather_subsets(attrs, masks, index.max_size).reshape(-1, index.max_size))
        rows.append(np.repeat(np.arange(lo, hi), 2 ** s))
        cols.append(sub_pos)
        vals.append(np.tile(np.array([coef(s, int(c)) for c in cnt], dtype=float), hi - lo))
    n_out = int(index.starts[min(max_size, index.max_size) + 1])
    return sps.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(n_out, len(index)))


def fourier_from_subset(index: SubsetIndex, max_size: int | None = None) -> sps.csr_matrix:
    r"""Sparse map ``f = F @ y``: ``f_U = sum_{S subset U} (-2)^{|S|} y_S`` (rows up to ``max_size``).

    >>> F = fourier_from_subset(SubsetIndex(1, 1))
    >>> F.toarray().tolist()
    [[1.0, 0.0], [1.0, -2.0]]
    """
    ms = index.max_size if max_size is None else max_size
    return _inclusion_matrix(index, ms, lambda s, u: (-2.0) ** u)


def subset_from_fourier(index: SubsetIndex, max_size: int | None = None) -> sps.csr_matrix:
    r"""Sparse map ``y = G @ f``: ``y_S = 2^{-|S|} sum_{U subset S} (-1)^{|U|} f_U``.

    >>> G = subset_from_fourier(SubsetIndex(1, 1))
    >>> G.toarray().tolist()
    [[1.0, 0.0], [0.5, -0.5]]
    """
    ms = index.max_size if max_size is None else max_size
    return _inclusion_matrix(index, ms, lambda s, u: (-1.0) ** u / 2.0 ** s)


@dataclass(frozen=True)
class FourierForm:
    r"""The measurement objective written diagonally in Fourier moments.

    ``sum_T w_T ||p_T(f) - c_T||^2 = sum_U a[U] (f_U - g[U])^2 + const``
    over the subset index positions (``a[U] = 0`` for unmeasured ``U``).
    """

    a: np.ndarray
    g: np.ndarray
    const: float

    def objective(self, f: np.ndarray) -> float:
        """Value of the weighted cell least squares at Fourier moments ``f``."""
        return float(np.sum(self.a * (f - self.g) ** 2) + self.const)


def fourier_form(cells: np.ndarray, layout: TableLayout, index: SubsetIndex,
                 weights: np.ndarray | None = None) -> FourierForm:
    r"""Diagonalize ``sum_T w_T ||p_T - c_T||^2`` in Fourier moments (Hadamard transform per table).

    Table ``T``'s cells are ``p_T = 2^{-|T|} H_T f_T`` with ``H_T`` the +-1
    Hadamard matrix (``H_T^T H_T = 2^{|T|} I``), so with ``chat_T = H_T^T c_T``,
    ``||p_T - c_T||^2 = 2^{-|T|} ||f_T - chat_T||^2``; summing over tables gives
    ``a_U = sum_{T>=U} w_T 2^{-|T|}`` and ``g_U`` the a-weighted mean of ``chat_{T,U}``.

    >>> lay = TableLayout.all_k_way(2, 1)
    >>> ff = fourier_form(np.array([0.75, 0.25, 0.5, 0.5]), lay, SubsetIndex(2, 1))
    >>> ff.a.tolist(), ff.g.tolist()
    ([1.0, 0.5, 0.5], [1.0, 0.5, 0.0])
    """
    cells = np.asarray(cells, dtype=float)
    if cells.shape != (layout.n_cells,):
        raise InvalidInputError(f"cells must have shape ({layout.n_cells},); got {cells.shape}")
    w = np.ones(layout.n_tables) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (layout.n_tables,) or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidParameterError("weights must be one finite non-negative number per table")
    N = len(index)
    a = np.zeros(N)
    wg = np.zeros(N)
    const = 0.0
    for s, ids, attrs in layout.groups():
        masks = _sub_masks(s)
        # chi[a, u] = prod_{j in u} z_j(a), z = +1 for value 0 and -1 for value 1
        chi = np.where((masks.astype(int) @ masks.T.astype(int)) % 2 == 0, 1.0, -1.0)  # (cells, U)
        c = np.stack([cells[layout.offsets[i]:layout.offsets[i] + 2 ** s] for i in ids])
        chat = c @ chi                                       # (tables, U)
        pos = index.lookup(_gather_subsets(attrs, masks, index.max_size).reshape(-1, index.max_size))
        wt = (w[ids] / 2.0 ** s)[:, None]
        np.add.at(a, pos, np.broadcast_to(wt, chat.shape).ravel())
        np.add.at(wg, pos, (wt * chat).ravel())
        const += float(np.sum(wt * chat ** 2))
    g = np.divide(wg, a, out=np.zeros(N), where=a > 0)
    const -= float(np.sum(a * g ** 2))
    return FourierForm(a, g, max(const, 0.0))


# ------------------------------------------------------------------ exact marginal polytope


def walsh_hadamard(v: np.ndarray) -> np.ndarray:
    r"""Unnormalized Walsh-Hadamard transform over ``2^n`` points (index bit ``i`` = attribute ``i``).

    ``out[U] = sum_x (-1)^{popcount(U & x)} v[x]``; applying it twice multiplies by ``2^n``.

    >>> walsh_hadamard(np.array([1.0, 0.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    v = np.array(v, dtype=float)
    size = v.shape[0]
    n = size.bit_length() - 1
    if size != 1 << n:
        raise InvalidInputError("v must have a power-of-two length")
    h = 1
    for _ in range(n):
        w = v.reshape(-1, 2, h)
        x, y = w[:, 0, :].copy(), w[:, 1, :]
        w[:, 0, :] += y
        w[:, 1, :] = x - y
        h *= 2
    return v


__all__ = [
    "attribute_sets", "TableLayout", "SubsetIndex", "contingency_tables", "worst_case_neighbour",
    "table_sensitivity", "measurement_matrix", "fourier_from_subset", "subset_from_fourier",
    "FourierForm", "fourier_form", "walsh_hadamard",
]

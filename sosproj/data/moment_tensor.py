r"""Moment tensors and subset moments of binary datasets, computed by streaming over rows.

For a binary dataset :math:`D` with rows :math:`e^{(1)},\dots,e^{(m)}\in\{0,1\}^n`
the *subset moment* of an attribute set :math:`S\subseteq[n]` is the fraction of
rows whose attributes in :math:`S` are all one,

.. math:: \mu_S = \frac1m \sum_{r=1}^m \prod_{i\in S} e^{(r)}_i ,\qquad \mu_\emptyset = 1 .

The paper's normalized moment tensor (proof of its k-way marginal theorem) is

.. math:: T = \frac1m \sum_{r} \bigl(e^{(r)}/\sqrt{s}\bigr)^{\otimes k},

with :math:`s=n` for dense data and :math:`s=t` for :math:`t`-sparse data. Because
:math:`e_i^2=e_i`, the entry :math:`T_\alpha` of an index tuple
:math:`\alpha\in[n]^k` only depends on its *support* :math:`\mathrm{supp}(\alpha)`:
:math:`T_\alpha = s^{-k/2}\,\mu_{\mathrm{supp}(\alpha)}`. Every order-``k`` object in
sosproj is therefore derived from the vector of subset moments
(``|S| <= k``), ordered by size and then lexicographically (:func:`subsets_upto`).

Counts are exact integers: rows are processed in chunks (``float32`` products of
0/1 values summed over at most ``2**24`` rows are exact) and accumulated in
``int64``, so ``m`` in the millions streams in bounded memory.

Examples
--------
>>> import numpy as np
>>> D = np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1]])
>>> subsets, counts = subset_counts(D, 2)
>>> dict(zip(subsets, counts.tolist()))[(0, 1)]
2
>>> T = moment_tensor(D, 2, form="full")
>>> bool(np.isclose(T[0, 1], 2 / 3 / 3))      # mu_{01} / n^{k/2} with n = 3, k = 2
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from sosproj.errors import DataPolicyError, InvalidInputError, InvalidParameterError
from sosproj.validation import check_array, check_binary_matrix, check_choice, check_int, check_memory

OnViolation = Literal["truncate", "raise"]

__all__ = [
    "subsets_upto", "n_subsets_upto", "subset_keys", "subset_index", "multisets",
    "surjection_count", "support_weights", "truncate_rows", "enforce_sparsity",
    "SubsetCountAccumulator", "subset_counts", "subset_moments", "moment_tensor",
    "tensor_from_subset_moments", "pool_tensor", "normalized_tensor_sensitivity",
    "tensor_sq_error",
]


# ------------------------------------------------------------------ indexing


def n_subsets_upto(n: int, k: int) -> int:
    """Number of subsets of ``[n]`` of size ``0..k``: :math:`\\sum_{j\\le k}\\binom{n}{j}`.

    >>> n_subsets_upto(4, 2)
    11
    """
    return sum(math.comb(n, j) for j in range(k + 1))


@lru_cache(maxsize=32)
def _subsets_cached(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = []
    for j in range(k + 1):
        out.extend(itertools.combinations(range(n), j))
    return tuple(out)


def subsets_upto(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """All subsets of ``range(n)`` of size ``<= k`` as sorted tuples, by size then lexicographically.

    The empty subset comes first. This is the order of every subset-moment vector in sosproj.

    >>> subsets_upto(3, 2)
    ((), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2))
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=0)
    check_memory(n_subsets_upto(n, k) * (64 + 8 * k), "the list of attribute subsets")
    return _subsets_cached(n, k)


def subset_keys(padded: np.ndarray, n: int) -> np.ndarray:
    """Integer keys of subsets given as rows of sorted indices, left aligned and padded with ``-1``.

    The key is :math:`\\sum_i (s_i + 1)(n+1)^{k-1-i}`; distinct subsets (of size <= the
    number of columns) get distinct keys. Used to map tuples to positions with
    :func:`numpy.searchsorted`.

    >>> subset_keys(np.array([[0, -1], [0, 1]]), 3).tolist()
    [4, 6]
    """
    padded = np.asarray(padded, dtype=np.int64)
    if padded.ndim != 2:
        raise InvalidInputError("padded must be a 2-D integer array (one subset per row)")
    k = padded.shape[1]
    if k and (n + 1) ** k >= 2**62:
        raise InvalidParameterError("n and k are too large for integer subset keys; reduce n or k")
    powers = (n + 1) ** np.arange(k - 1, -1, -1, dtype=np.int64)
    return (padded + 1) @ powers


@lru_cache(maxsize=16)
def _subset_table(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted keys, positions) for the subsets of size <= k (k >= 1 columns)."""
    subs = _subsets_cached(n, k)
    width = max(k, 1)
    padded = np.full((len(subs), width), -1, dtype=np.int64)
    for row, s in enumerate(subs):
        padded[row, : len(s)] = s
    keys = subset_keys(padded, n)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def subset_index(padded: np.ndarray, n: int, k: int) -> np.ndarray:
    """Positions in :func:`subsets_upto` ``(n, k)`` of subsets given as padded sorted rows.

    >>> subset_index(np.array([[0, 2], [1, -1]]), 3, 2).tolist()
    [5, 2]
    """
    padded = np.asarray(padded, dtype=np.int64)
    if padded.shape[1] < k:
        padded = np.hstack([padded, np.full((padded.shape[0], k - padded.shape[1]), -1, dtype=np.int64)])
    keys_sorted, order = _subset_table(n, k)
    q = subset_keys(padded, n)
    pos = np.searchsorted(keys_sorted, q)
    pos = np.minimum(pos, len(keys_sorted) - 1)
    if not np.all(keys_sorted[pos] == q):
        raise InvalidInputError("some subsets are not subsets of range(n) of size <= k")
    return order[pos]


def multisets(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Orbits of index tuples under permutation: sorted ``k``-tuples (multisets) and their sizes.

    Returns ``(orbits, weights)``: ``orbits`` is an int array ``(C(n+k-1, k), k)`` in the
    order of :func:`itertools.combinations_with_replacement`, ``weights[o]`` the number
    of tuples of ``[n]^k`` in the orbit (a multinomial coefficient).

    >>> o, w = multisets(2, 2)
    >>> o.tolist(), w.tolist()
    ([[0, 0], [0, 1], [1, 1]], [1, 2, 1])
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=1)
    count = math.comb(n + k - 1, k)
    check_memory(count * 8 * (k + 1), "the multiset (orbit) index")
    orbits = np.array(list(itertools.combinations_with_replacement(range(n), k)), dtype=np.int64)
    orbits = orbits.reshape(count, k)
    fk = math.factorial(k)
    weights = np.empty(count, dtype=np.int64)
    for i, row in enumerate(orbits):
        _, mult = np.unique(row, return_counts=True)
        weights[i] = fk // math.prod(math.factorial(int(c)) for c in mult)
    return orbits, weights


def surjection_count(k: int, j: int) -> int:
    """Number of tuples in ``S^k`` whose support is exactly a fixed ``j``-set ``S``: ``j! S(k, j)``.

    >>> [surjection_count(3, j) for j in range(4)]
    [0, 1, 6, 6]
    """
    return sum((-1) ** i * math.comb(j, i) * (j - i) ** k for i in range(j + 1))


def support_weights(n: int, k: int) -> np.ndarray:
    """For each subset of :func:`subsets_upto` ``(n, k)``: the number of tuples of ``[n]^k`` with that support.

    The empty set gets weight 0. ``support_weights(n, k).sum() == n**k``.

    >>> support_weights(2, 2).tolist()
    [0, 1, 1, 2]
    """
    subs = subsets_upto(n, k)
    per_size = [surjection_count(k, j) for j in range(k + 1)]
    return np.array([per_size[len(s)] for s in subs], dtype=np.int64)


@lru_cache(maxsize=4)
def _tuple_support_map(n: int, k: int) -> np.ndarray:
    """Position (in subsets_upto(n, k)) of the support of every tuple of [n]^k, row-major."""
    grid = np.indices((n,) * k, dtype=np.int64).reshape(k, -1).T
    s = np.sort(grid, axis=1)
    if k > 1:
        dup = np.zeros_like(s, dtype=bool)
        dup[:, 1:] = s[:, 1:] == s[:, :-1]
        s = np.where(dup, np.int64(n + 10), s)
        s = np.sort(s, axis=1)
        s[s == n + 10] = -1
    return subset_index(s, n, k)


# ------------------------------------------------------------------ sparsity policy


def truncate_rows(D: Any, t: int) -> np.ndarray | sp.csr_matrix:
    """Public truncation rule: keep the first ``t`` ones of every row (lowest column indices).

    The rule depends on the row alone, so replacing one row of ``D`` replaces one row
    of the output: replace-one adjacency is preserved and sensitivities computed for
    ``t``-sparse rows hold.

    >>> truncate_rows(np.array([[1, 1, 1], [0, 1, 0]]), 2).tolist()
    [[1, 1, 0], [0, 1, 0]]
    """
    t = check_int(t, "sparsity", minimum=1)
    D = check_binary_matrix(D, "D")
    if sp.issparse(D):
        M = D.tocsr(copy=True)
        M.sort_indices()
        row_of = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
        pos = np.arange(M.nnz) - M.indptr[row_of]
        M.data = np.where(pos < t, M.data, 0).astype(np.int8)
        M.eliminate_zeros()
        return M
    keep = np.cumsum(D, axis=1, dtype=np.int64) <= t
    return (D * keep).astype(np.uint8)


def enforce_sparsity(D: Any, t: int | None, on_violation: str = "truncate") -> np.ndarray | sp.csr_matrix:
    """Validate ``D`` as binary and apply the row-sparsity policy for ``sparsity=t``.

    ``on_violation="truncate"`` applies :func:`truncate_rows`; ``"raise"`` refuses data
    with a row over ``t`` ones (:class:`~sosproj.errors.DataPolicyError`; the message
    reveals neither which rows nor how many). Note that raising is itself a
    data-dependent event: use ``"truncate"`` when the refusal could be observed.

    >>> enforce_sparsity(np.array([[1, 0], [0, 1]]), 1, "raise").tolist()
    [[1, 0], [0, 1]]
    """
    check_choice(on_violation, "on_violation", ("truncate", "raise"))
    D = check_binary_matrix(D, "D")
    if t is None:
        return D
    t = check_int(t, "sparsity", minimum=1)
    row_nnz = np.diff(D.indptr) if sp.issparse(D) else D.sum(axis=1, dtype=np.int64)
    if np.any(row_nnz > t):
        if on_violation == "raise":
            raise DataPolicyError(
                "D has rows with more than sparsity ones; pass on_violation='truncate' to apply "
                "the public truncation rule (first sparsity ones of each row kept) or raise sparsity")
        return truncate_rows(D, t)
    return D


# ------------------------------------------------------------------ counting


class SubsetCountAccumulator:
    """Streaming exact counter of :math:`\\sum_r \\prod_{i\\in S} e^{(r)}_i` for all ``|S| <= k``.

    Feed row chunks (dense 0/1 arrays or scipy.sparse matrices with ``n`` columns) with
    :meth:`update`; read ``(subsets, counts)`` with :meth:`result`. Dense chunks use one
    matrix product per order (cost about ``m n binom(n, k-1)``); sparse chunks enumerate the
    subsets of each row's support (cost about ``m sum_j binom(t, j)``).

    >>> acc = SubsetCountAccumulator(n=3, k=2)
    >>> acc.update(np.array([[1, 1, 0]])); acc.update(np.array([[0, 1, 1]]))
    >>> acc.m, acc.result()[1].tolist()
    (2, [2, 1, 2, 1, 1, 0, 1])
    """

    def __init__(self, n: int, k: int, *, chunk_rows: int | None = None) -> None:
        self.n = check_int(n, "n", minimum=1)
        self.k = check_int(k, "k", minimum=1, maximum=self.n)
        total = n_subsets_upto(self.n, self.k)
        check_memory(total * 16, "the subset-moment vector")
        self._level_sizes = [math.comb(self.n, j) for j in range(self.k + 1)]
        self._counts = [np.zeros(s, dtype=np.int64) for s in self._level_sizes]
        self.m = 0
        width = self._level_sizes[self.k - 1] + self.n
        if chunk_rows is None:
            chunk_rows = max(1, min(1 << 16, (64 << 20) // (4 * width)))
        self.chunk_rows = check_int(chunk_rows, "chunk_rows", minimum=1, maximum=1 << 24)
        # lexicographic successor masks: level j subsets = (U, v) with v > last(U)
        self._last = [np.array([-1])]
        for j in range(1, self.k):
            self._last.append(np.array([s[-1] for s in itertools.combinations(range(self.n), j)]))

    def update(self, chunk: Any) -> None:
        """Add the rows of ``chunk`` (validated as binary with ``n`` columns)."""
        M = check_binary_matrix(chunk, "chunk")
        if M.shape[1] != self.n:
            raise InvalidInputError(f"chunk must have n={self.n} columns; got {M.shape[1]}")
        for start in range(0, M.shape[0], self.chunk_rows):
            part = M[start:start + self.chunk_rows]
            if sp.issparse(part):
                self._update_sparse(part.tocsr())
            else:
                self._update_dense(part)
        self.m += M.shape[0]

    def _update_dense(self, X: np.ndarray) -> None:
        Xf = X.astype(np.float32)
        P = np.ones((X.shape[0], 1), dtype=np.float32)
        cols = np.arange(self.n)
        self._counts[0][0] += X.shape[0]
        for j in range(1, self.k + 1):
            G = P.T @ Xf                                   # (C(n, j-1), n): exact integer sums
            mask = cols[None, :] > self._last[j - 1][:, None]
            self._counts[j] += np.rint(G[mask]).astype(np.int64)
            if j < self.k:
                ri, ci = np.nonzero(mask)
                P = P[:, ri] * Xf[:, ci]

    def _update_sparse(self, M: sp.csr_matrix) -> None:
        M.sort_indices()
        self._counts[0][0] += M.shape[0]
        nnz = np.diff(M.indptr)
        for r in np.unique(nnz):
            r = int(r)
            if r == 0:
                continue
            rows = np.nonzero(nnz == r)[0]
            idx = M.indices[(M.indptr[rows][:, None] + np.arange(r)[None, :])].astype(np.int64)
            for j in range(1, min(r, self.k) + 1):
                combs = np.array(list(itertools.combinations(range(r), j)), dtype=np.int64)
                sel = idx[:, combs].reshape(-1, j)           # (rows * C(r, j), j), sorted per row
                pos = self._lex_rank(sel)
                self._counts[j] += np.bincount(pos, minlength=self._level_sizes[j])

    def _lex_rank(self, sel: np.ndarray) -> np.ndarray:
        """Lexicographic rank of sorted j-combinations of range(n) among all j-subsets.

        rank = sum_i [C(n - c_{i-1} - 1, j - i) - C(n - c_i, j - i)] (hockey-stick identity),
        with c_{-1} = -1 and i = 0..j-1.
        """
        if not hasattr(self, "_binom"):
            a = np.arange(self.n + 2)
            self._binom = np.array([[math.comb(int(x), r) for r in range(self.k + 1)] for x in a],
                                   dtype=np.int64)
        j = sel.shape[1]
        prev = np.full(sel.shape[0], -1, dtype=np.int64)
        rank = np.zeros(sel.shape[0], dtype=np.int64)
        for i in range(j):
            c = sel[:, i]
            rank += self._binom[self.n - prev - 1, j - i] - self._binom[self.n - c, j - i]
            prev = c
        return rank

    def result(self) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
        """``(subsets, counts)`` in the order of :func:`subsets_upto`; ``counts[0] == m``."""
        if self.m == 0:
            raise InvalidInputError("no rows were added; the dataset must have at least one row")
        return subsets_upto(self.n, self.k), np.concatenate(self._counts)


def _prepare(D: Any, k: int, sparsity: int | None, on_violation: str
             ) -> tuple[np.ndarray | sp.csr_matrix, int]:
    D = enforce_sparsity(D, sparsity, on_violation)
    n = D.shape[1]
    k = check_int(k, "k", minimum=1)
    if k > n:
        raise InvalidParameterError(f"k must be <= n (the number of attributes, {n}); got k={k}")
    if sparsity is not None and k > sparsity:
        raise InvalidParameterError("k must be <= sparsity (no row has more than sparsity ones)")
    return D, k


def subset_counts(D: Any, k: int, *, sparsity: int | None = None, on_violation: str = "truncate",
                  chunk_rows: int | None = None) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """Exact counts of rows with all attributes of ``S`` equal to one, for all ``|S| <= k``.

    ``D``: binary matrix (numpy or scipy.sparse), rows = records. With ``sparsity=t``
    rows over ``t`` ones are truncated or refused (:func:`enforce_sparsity`).
    Returns ``(subsets, counts)`` (order of :func:`subsets_upto`, ``counts[0] = m``).

    >>> subset_counts(np.eye(3, dtype=int), 1)[1].tolist()
    [3, 1, 1, 1]
    """
    D, k = _prepare(D, k, sparsity, on_violation)
    acc = SubsetCountAccumulator(D.shape[1], k, chunk_rows=chunk_rows)
    acc.update(D)
    return acc.result()


def subset_moments(D: Any, k: int, *, sparsity: int | None = None, on_violation: str = "truncate",
                   chunk_rows: int | None = None) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """Subset moments :math:`\\mu_S` (fractions of rows) for all ``|S| <= k``; ``mu[0] = 1``.

    >>> subset_moments(np.array([[1, 1], [1, 0]]), 2)[1].tolist()
    [1.0, 1.0, 0.5, 0.5]
    """
    subs, counts = subset_counts(D, k, sparsity=sparsity, on_violation=on_violation,
                                 chunk_rows=chunk_rows)
    return subs, counts / counts[0]


def subset_counts_stream(chunks: Iterable[Any], n: int, k: int, *, sparsity: int | None = None,
                         on_violation: str = "truncate") -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """:func:`subset_counts` over an iterable of row chunks (for data that do not fit in memory).

    >>> chunks = (np.array([[1, 0]]), np.array([[1, 1]]))
    >>> subset_counts_stream(chunks, 2, 2)[1].tolist()
    [2, 2, 1, 1]
    """
    acc = SubsetCountAccumulator(n, k)
    for chunk in chunks:
        acc.update(enforce_sparsity(chunk, sparsity, on_violation))
    return acc.result()


__all__.append("subset_counts_stream")


# ------------------------------------------------------------------ tensors


def tensor_from_subset_moments(mu: np.ndarray, n: int, k: int, *, scale: float = 1.0,
                               form: Literal["full", "orbit"] = "full") -> np.ndarray:
    """Order-``k`` tensor with entries ``scale * mu[supp(alpha)]`` from a subset-moment vector.

    ``form="full"`` returns the ``(n,)*k`` array; ``"orbit"`` one entry per multiset
    (order of :func:`multisets`).

    >>> tensor_from_subset_moments(np.array([1.0, 0.5, 0.25, 0.125]), 2, 2).tolist()
    [[0.5, 0.125], [0.125, 0.25]]
    """
    mu = check_array(mu, "mu", allow_empty=True)
    if mu.shape != (n_subsets_upto(n, k),):
        raise InvalidInputError("mu must have one entry per subset of size <= k (order of subsets_upto)")
    if form == "full":
        check_memory(8 * n**k * 3, f"the full order-{k} tensor over n={n} attributes")
        return scale * mu[_tuple_support_map(n, k)].reshape((n,) * k)
    if form == "orbit":
        orbits, _ = multisets(n, k)
        s = orbits.copy()
        if k > 1:
            dup = np.zeros_like(s, dtype=bool)
            dup[:, 1:] = s[:, 1:] == s[:, :-1]
            s = np.where(dup, np.int64(n + 10), s)
            s = np.sort(s, axis=1)
            s[s == n + 10] = -1
        return scale * mu[subset_index(s, n, k)]
    raise InvalidParameterError("form must be 'full' or 'orbit'")


def moment_tensor(D: Any, k: int, *, sparsity: int | None = None, on_violation: str = "truncate",
                  form: Literal["orbit", "full", "subsets"] = "orbit") -> np.ndarray:
    """The paper's normalized moment tensor :math:`T=\\frac1m\\sum_r (e^{(r)}/\\sqrt{s})^{\\otimes k}`.

    ``s = n`` (dense; then :math:`\\|T\\|_F \\le 1`) or ``s = sparsity`` (``t``-sparse rows).
    ``form="orbit"``: one entry per multiset (:func:`multisets` order); ``"full"``: the
    ``(n,)*k`` array; ``"subsets"``: the entries per support subset (``|S| = 1..k``).

    >>> D = np.array([[1, 0], [1, 1]])
    >>> moment_tensor(D, 2).tolist()            # orbits (0,0), (0,1), (1,1); / n^{k/2} = 2
    [0.5, 0.25, 0.25]
    """
    D, k = _prepare(D, k, sparsity, on_violation)
    n = D.shape[1]
    _, mu = subset_moments(D, k)
    s = n if sparsity is None else sparsity
    scale = float(s) ** (-k / 2)
    if form == "subsets":
        return scale * mu[1:]
    return tensor_from_subset_moments(mu, n, k, scale=scale, form=form)


def pool_tensor(Y: np.ndarray, k: int) -> np.ndarray:
    """Average the entries of a full ``(n,)*k`` tensor over tuples with the same support.

    Returns one value per subset of :func:`subsets_upto` ``(n, k)`` (entry 0, the empty
    set, is 0). This is the orthogonal projection onto the span of
    :math:`\\{x^{\\otimes k}: x\\in\\{0,1\\}^n\\}` read in subset coordinates: the
    "orbit averaging" of the symmetrize baseline, identifying :math:`x_i^2=x_i`.

    >>> Y = np.array([[1.0, 2.0], [4.0, 3.0]])
    >>> pool_tensor(Y, 2).tolist()
    [0.0, 1.0, 3.0, 3.0]
    """
    Y = check_array(Y, "Y", allow_empty=True)
    n = Y.shape[0] if Y.ndim else 0
    if Y.ndim != k or any(d != n for d in Y.shape):
        raise InvalidInputError(f"Y must be a full order-{k} tensor of shape (n,)*k")
    idx = _tuple_support_map(n, k)
    total = np.bincount(idx, weights=Y.ravel(), minlength=n_subsets_upto(n, k))
    w = support_weights(n, k).astype(np.float64)
    out = np.zeros_like(total)
    np.divide(total, w, out=out, where=w > 0)
    return out


def normalized_tensor_sensitivity(n: int, k: int, m: int, sparsity: int | None = None) -> float:
    r"""Exact :math:`\ell_2` sensitivity of the normalized tensor under replace-one adjacency.

    Replacing row :math:`x` by :math:`x'` (both in :math:`\{0,1\}^n`, with at most
    ``sparsity`` ones when given) changes :math:`T` by :math:`(x^{\otimes k}-x'^{\otimes k})/(m s^{k/2})`,
    whose squared norm is :math:`((p+r)^k + (q+r)^k - 2r^k)/(m^2 s^k)` with
    :math:`p=|x\setminus x'|`, :math:`q=|x'\setminus x|`, :math:`r=|x\cap x'|`. The
    maximum over admissible ``(p, q, r)`` is computed exactly (it is increasing in ``r``).
    Dense (``s = n``): exactly ``1/m`` (all-ones row replaced by the zero row), below the
    paper's ``2/m`` and the generic non-negative bound ``sqrt(2)/m``. ``t``-sparse
    (``s = t``): ``sqrt(2)/m`` when ``n >= 2t`` (disjoint supports). See ``docs/marginals.md``.

    >>> normalized_tensor_sensitivity(10, 3, 100)
    0.01
    >>> round(normalized_tensor_sensitivity(10, 3, 100, sparsity=4) * 100, 6)
    1.414214
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=1)
    m = check_int(m, "m", minimum=1)
    t = n if sparsity is None else check_int(sparsity, "sparsity", minimum=1)
    t = min(t, n)
    s = n if sparsity is None else sparsity
    p = np.arange(t + 1, dtype=np.float64)[:, None]
    q = np.arange(t + 1, dtype=np.float64)[None, :]
    r = np.minimum(np.minimum(t - p, t - q), n - p - q)
    ok = r >= 0
    r = np.maximum(r, 0.0)
    val = np.where(ok, (p + r) ** k + (q + r) ** k - 2.0 * r**k, 0.0)
    return float(math.sqrt(float(val.max())) / (m * float(s) ** (k / 2)))


def tensor_sq_error(mu_est: np.ndarray, mu_true: np.ndarray, n: int, k: int) -> float:
    """Squared Frobenius distance of the two unnormalized count-free tensors built from subset moments.

    Returns :math:`\\sum_{\\alpha\\in[n]^k}(\\hat\\mu_{supp\\,\\alpha}-\\mu_{supp\\,\\alpha})^2`
    (multiply by ``m**2`` for count units, divide by ``s**k`` for the normalized tensor).

    >>> tensor_sq_error(np.array([1, .5, .5, .5]), np.array([1, .5, .5, 0.]), 2, 2)
    0.5
    """
    d = np.asarray(mu_est, dtype=np.float64) - np.asarray(mu_true, dtype=np.float64)
    return float(np.sum(support_weights(n, k) * d * d))

r"""Monomials as integer exponent vectors: bases, exact row hashing, orbits of index tuples.

A monomial :math:`x^a = \prod_i x_i^{a_i}` in ``n_vars`` variables is stored as a
row ``a`` of a non-negative integer array. Everything here is vectorized over
rows:

* :func:`monomials_up_to` enumerates all monomials of total degree ``<= d`` in
  graded order (degree first; within a degree, lexicographic in the sorted
  index tuple), optionally keeping only *standard* monomials (not divisible by a
  set of leading monomials);
* :class:`MonomialIndex` maps rows to their position in a fixed list (64-bit
  multiplicative hashing + ``searchsorted``, every hit verified row by row, so
  the lookup is exact; a hash collision falls back to an exact byte-key path);
* :func:`unique_rows` deduplicates rows the same way;
* :func:`index_tuples` and :func:`orbit_weights` give the sorted index tuples
  :math:`i_1 \le \dots \le i_k` (one per orbit of :math:`[n]^k` under
  permutations) and the orbit sizes :math:`k!/\prod_j m_j!`.

Examples
--------
>>> from sosproj.poly.monomials import monomials_up_to, count_monomials
>>> monomials_up_to(2, 2).tolist()
[[0, 0], [1, 0], [0, 1], [2, 0], [1, 1], [0, 2]]
>>> count_monomials(2, 2)
6
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sosproj.errors import InvalidInputError

#: integer dtype of exponent arrays built here
EXP_DTYPE = np.int16

_HASH_SEED = 0x5EED5
_weights_cache: dict[int, np.ndarray] = {}


def _hash_weights(n_vars: int) -> np.ndarray:
    w = _weights_cache.get(n_vars)
    if w is None:
        g = np.random.default_rng(_HASH_SEED)
        w = g.integers(1, np.iinfo(np.int64).max, size=n_vars, dtype=np.int64).astype(np.uint64)
        w |= np.uint64(1)
        _weights_cache[n_vars] = w
    return w


def hash_rows(exps: np.ndarray) -> np.ndarray:
    """64-bit multiplicative hash of each exponent row (wrap-around arithmetic).

    Equal rows get equal keys; distinct rows collide with probability about
    :math:`2^{-64}` per pair, and every user of the keys verifies matches row by row.

    >>> import numpy as np
    >>> k = hash_rows(np.array([[1, 0], [0, 1], [1, 0]]))
    >>> bool(k[0] == k[2]), bool(k[0] == k[1])
    (True, False)
    """
    exps = np.asarray(exps)
    return _chunked_keys(exps, _hash_weights(exps.shape[1]))


#: rows per block of :func:`_chunked_keys` times the row length stays near this (32 MiB of uint64)
_KEY_BLOCK_ENTRIES = 2 ** 22


def _chunked_keys(exps: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``exps.astype(uint64) @ w`` (wrap-around) block by block: the uint64 copy of a large exponent array
    (4.6 million rows of 100 variables at ``n = 100``, degree 4: 3.7 GB) is never formed whole."""
    out = np.empty(exps.shape[0], dtype=np.uint64)
    step = max(1, _KEY_BLOCK_ENTRIES // max(1, exps.shape[1]))
    with np.errstate(over="ignore"):
        for s in range(0, exps.shape[0], step):
            out[s:s + step] = exps[s:s + step].astype(np.uint64) @ w
    return out


def _bytes_keys(exps: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(exps, dtype=np.int64)
    return a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()


def unique_rows(exps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``exps`` and the inverse map (``uniq[inv] == exps``), exactly.

    >>> import numpy as np
    >>> u, inv = unique_rows(np.array([[2, 0], [0, 1], [2, 0]]))
    >>> len(u), bool((u[inv] == [[2, 0], [0, 1], [2, 0]]).all())
    (2, True)
    """
    exps = np.asarray(exps)
    if exps.shape[0] == 0:
        return exps.copy(), np.zeros(0, dtype=np.int64)
    first, inv = unique_keys(hash_rows(exps))
    uniq = exps[first]
    if np.array_equal(uniq[inv], exps):
        return uniq, inv
    # hash collision (probability ~ 2^-64 per pair): exact path on byte keys
    _, first, inv = np.unique(_bytes_keys(exps), return_index=True, return_inverse=True)
    return exps[first], inv.ravel()


def unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of a 1-D key array: ``keys[first][inverse] == keys``, groups in key order.

    Unlike ``np.unique(return_index=True)`` any representative of a group may be returned,
    which allows the faster unstable sort.

    >>> import numpy as np
    >>> first, inv = unique_keys(np.array([5, 3, 5, 9]))
    >>> inv.tolist(), np.array([5, 3, 5, 9])[first].tolist()
    ([1, 0, 1, 2], [3, 5, 9])
    """
    keys = np.asarray(keys)
    if keys.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    perm = np.argsort(keys)
    sk = keys[perm]
    flag = np.empty(len(sk), dtype=bool)
    flag[0] = True
    np.not_equal(sk[1:], sk[:-1], out=flag[1:])
    del sk
    inv = np.empty(len(perm), dtype=np.int64)
    inv[perm] = np.cumsum(flag) - 1
    return perm[flag], inv


class LinearKey:
    r"""Integer keys of exponent rows that are *linear*: ``key(a + b) = key(a) + key(b)`` (mod 2^64).

    Linearity lets the keys of all products :math:`x^{a_i} x^{a_j}` be formed from the keys of
    the factors without materializing the sums. When :math:`(D+1)^{N} < 2^{63}` (``N`` variables,
    degrees ``<= D``) the key is the exact mixed-radix code :math:`\sum_v a_v (D+1)^v` (a bijection,
    ``exact = True``); otherwise it is a pair of independent random 64-bit multiplicative hashes
    and :meth:`unique` verifies every group with the second one (a collision in the first hash
    is detected unless the second collides on the same pair, probability about :math:`2^{-64}`),
    falling back to the exact row path when a collision shows.

    >>> import numpy as np
    >>> lk = LinearKey(2, 4)
    >>> lk.exact, [int(k) for k in lk.keys(np.array([[1, 2]]))[0]]
    (True, [11])
    """

    def __init__(self, n_vars: int, max_degree: int) -> None:
        self.n_vars = int(n_vars)
        base = int(max_degree) + 1
        self.exact = base ** self.n_vars < 2 ** 63
        if self.exact:
            self._w = [np.array([base ** v for v in range(self.n_vars)], dtype=np.int64).astype(np.uint64)]
        else:
            g = np.random.default_rng(_HASH_SEED + 1)
            w2 = g.integers(1, np.iinfo(np.int64).max, size=self.n_vars, dtype=np.int64).astype(np.uint64)
            self._w = [_hash_weights(self.n_vars), w2 | np.uint64(1)]

    def keys(self, exps: np.ndarray) -> list[np.ndarray]:
        """Key components (one array for exact keys, two for hashes) of the rows of ``exps``."""
        e = np.asarray(exps)
        return [_chunked_keys(e, w) for w in self._w]

    def unique(self, keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray] | None:
        """``(first, inverse)`` of the distinct keys, or ``None`` when a hash collision was detected."""
        first, inv = unique_keys(keys[0])
        if not self.exact and not np.array_equal(keys[1][first][inv], keys[1]):
            return None
        return first, inv


class MonomialIndex:
    """Exact position lookup of exponent rows in a fixed list of distinct monomials.

    Parameters
    ----------
    exps : int array (m, n_vars) of distinct exponent rows; position ``i`` is row ``i``.

    >>> import numpy as np
    >>> idx = MonomialIndex(np.array([[0, 0], [1, 0], [0, 1]]))
    >>> idx.lookup(np.array([[0, 1], [0, 0]])).tolist()
    [2, 0]
    >>> idx.lookup(np.array([[2, 0]]), missing=-1).tolist()
    [-1]
    """

    def __init__(self, exps: np.ndarray) -> None:
        self.exps = np.asarray(exps)
        self.n_vars = self.exps.shape[1]
        keys = hash_rows(self.exps)
        order = np.argsort(keys, kind="stable")
        self._keys = keys[order]
        self._order = order
        self._exact: dict[bytes, int] | None = None
        if self._keys.size > 1 and np.any(self._keys[1:] == self._keys[:-1]):
            u, _ = unique_rows(self.exps)
            if len(u) != len(self.exps):
                raise InvalidInputError("MonomialIndex needs distinct exponent rows; deduplicate them first")
            self._exact = {bytes(r): i for i, r in enumerate(np.ascontiguousarray(self.exps, np.int64))}

    def __len__(self) -> int:
        return len(self.exps)

    def lookup(self, q: np.ndarray, missing: int | None = None) -> np.ndarray:
        """Positions of the rows of ``q``; absent rows give ``missing`` or raise."""
        q = np.asarray(q)
        if q.ndim != 2 or q.shape[1] != self.n_vars:
            raise InvalidInputError(f"monomials must have shape (m, {self.n_vars})")
        if self._exact is not None:
            qq = np.ascontiguousarray(q, np.int64)
            out = np.array([self._exact.get(bytes(r), -1) for r in qq], dtype=np.int64)
        else:
            kq = hash_rows(q)
            pos = np.searchsorted(self._keys, kq)
            pos_c = np.minimum(pos, len(self._keys) - 1)
            hit = self._keys[pos_c] == kq if len(self._keys) else np.zeros(len(q), bool)
            out = np.where(hit, self._order[pos_c] if len(self._keys) else 0, -1).astype(np.int64)
            ok = out >= 0
            if ok.any():
                good = np.all(self.exps[out[ok]] == q[ok], axis=1)
                if not good.all():  # a hash collision with a foreign row: treat as absent
                    idx = np.flatnonzero(ok)[~good]
                    out[idx] = -1
        if (out < 0).any():
            if missing is None:
                raise InvalidInputError("a monomial is not in this basis (it is not standard or its degree "
                                        "is too high); this indicates an inconsistent reduction")
            out[out < 0] = missing
        return out


def _extend(cur: np.ndarray, last: np.ndarray, n_vars: int) -> tuple[np.ndarray, np.ndarray]:
    """All monomials one degree higher, each generated once (append a variable >= the last one)."""
    counts = n_vars - last
    total = int(counts.sum())
    rows = np.repeat(np.arange(len(cur)), counts)
    start = np.repeat(np.cumsum(counts) - counts, counts)
    j = np.repeat(last, counts) + (np.arange(total) - start)
    new = cur[rows]
    new[np.arange(total), j] += 1
    return new, j


def divisible_by_any(exps: np.ndarray, leading: np.ndarray | None) -> np.ndarray:
    """Boolean mask: row ``r`` of ``exps`` is divisible by some row of ``leading``.

    >>> import numpy as np
    >>> divisible_by_any(np.array([[2, 1], [1, 1]]), np.array([[2, 0]])).tolist()
    [True, False]
    """
    exps = np.asarray(exps)
    mask = np.zeros(len(exps), dtype=bool)
    if leading is None or len(leading) == 0:
        return mask
    for lm in np.asarray(leading):
        supp = np.flatnonzero(lm)
        mask |= np.all(exps[:, supp] >= lm[supp], axis=1)
    return mask


def monomials_up_to(n_vars: int, degree: int, leading: np.ndarray | None = None,
                    by_degree: bool = False) -> np.ndarray | list[np.ndarray]:
    r"""All (standard) monomials of total degree ``<= degree`` in graded order.

    With ``leading`` (int array of leading monomials of a Groebner basis), only the
    standard monomials, those divisible by no leading monomial, are kept. The set
    of standard monomials is an order ideal, so pruning degree by degree is exact.
    Unreduced count: :math:`\binom{n+d}{d}`.

    >>> import numpy as np
    >>> monomials_up_to(2, 3, leading=np.array([[2, 0], [0, 2]])).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    cur = np.zeros((1, n_vars), dtype=EXP_DTYPE)
    last = np.zeros(1, dtype=np.int64)
    blocks = [cur]
    for _ in range(degree):
        if len(cur) == 0:
            break
        cur, last = _extend(cur, last, n_vars)
        if leading is not None and len(leading):
            keep = ~divisible_by_any(cur, leading)
            cur, last = cur[keep], last[keep]
        blocks.append(cur)
    if by_degree:
        while len(blocks) < degree + 1:
            blocks.append(np.zeros((0, n_vars), dtype=EXP_DTYPE))
        return blocks
    return np.concatenate(blocks, axis=0)


def count_monomials(n_vars: int, degree: int) -> int:
    r"""Number of monomials of degree ``<= degree`` in ``n_vars`` variables, :math:`\binom{n+d}{d}`.

    >>> count_monomials(30, 2)
    496
    """
    return math.comb(n_vars + degree, degree)


def series_counts(factors: Sequence[Sequence[int]], degree: int) -> list[int]:
    r"""Coefficients :math:`[z^0..z^d]` of a product of generating functions (exact integers).

    ``factors`` are coefficient lists (truncated at ``degree``) of per-variable
    (or per-group) Hilbert series of a monomial quotient whose standard
    monomials factor over groups of variables; the product counts standard
    monomials by degree.

    >>> series_counts([[1, 1]] * 3, 3)   # Boolean cube, 3 variables: subsets by size
    [1, 3, 3, 1]
    """
    out = [1] + [0] * degree
    for f in factors:
        f = list(f)[: degree + 1]
        new = [0] * (degree + 1)
        for i, a in enumerate(out):
            if a:
                for j, b in enumerate(f[: degree + 1 - i]):
                    new[i + j] += a * b
        out = new
    return out


def power_series_counts(factor: Sequence[int], copies: int, degree: int) -> list[int]:
    """``series_counts([factor] * copies, degree)`` by repeated squaring (fast for many copies).

    >>> power_series_counts([1, 1, 1, 1], 2, 3)   # two free variables: 1, 2, 3, 4
    [1, 2, 3, 4]
    """
    result = [1] + [0] * degree
    base = list(factor)[: degree + 1] + [0] * max(0, degree + 1 - len(factor))
    e = copies
    while e:
        if e & 1:
            result = series_counts([result, base], degree)
        base = series_counts([base, base], degree)
        e >>= 1
    return result


def to_multiset(exps: np.ndarray, width: int | None = None, pad: int = -1) -> np.ndarray:
    """Rows as padded sorted variable-index lists: ``x0^2 x2 -> [0, 0, 2, pad...]``.

    >>> import numpy as np
    >>> to_multiset(np.array([[2, 0, 1], [0, 0, 0]]), pad=3).tolist()
    [[0, 0, 2], [3, 3, 3]]
    """
    exps = np.asarray(exps)
    if not np.issubdtype(exps.dtype, np.integer):
        exps = exps.astype(np.int64)
    m, _ = exps.shape
    # from the nonzero exponents only (row-major, so by row, then variable): no m x n_vars int64 copies (at
    # n = 100, degree 4: 4.6M x 100 entries, ~9 s CPU and several GiB before issue 15's session 29)
    r, c = np.nonzero(exps)
    cnt = exps[r, c].astype(np.int64)
    deg = np.bincount(r, weights=cnt, minlength=m).astype(np.int64)
    width = int(deg.max(initial=0)) if width is None else width
    out = np.full((m, width), pad, dtype=np.int64)
    flat_var = np.repeat(c.astype(np.int64), cnt)
    row = np.repeat(r, cnt)
    pos = np.arange(len(row)) - np.repeat(np.cumsum(deg) - deg, deg)
    out[row, pos] = flat_var
    return out


def index_tuples(n: int, k: int) -> np.ndarray:
    r"""Sorted index tuples :math:`0 \le i_1 \le \dots \le i_k < n`, lexicographic; one per orbit.

    There are :math:`\binom{n+k-1}{k}` of them.

    >>> index_tuples(3, 2).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2], [2, 2]]
    """
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    cur = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(k - 1):
        last = cur[:, -1]
        counts = n - last
        rows = np.repeat(np.arange(len(cur)), counts)
        start = np.repeat(np.cumsum(counts) - counts, counts)
        j = np.repeat(last, counts) + (np.arange(int(counts.sum())) - start)
        cur = np.concatenate([cur[rows], j[:, None]], axis=1)
    return cur


def orbit_weights(tuples: np.ndarray) -> np.ndarray:
    r"""Orbit sizes :math:`k!/\prod_j m_j!` of sorted index tuples (``m_j`` = multiplicities).

    >>> import numpy as np
    >>> orbit_weights(np.array([[0, 0, 0], [0, 0, 1], [0, 1, 2]])).tolist()
    [1, 3, 6]
    """
    tuples = np.asarray(tuples, dtype=np.int64)
    m, k = tuples.shape
    fact = np.array([math.factorial(i) for i in range(k + 1)], dtype=np.int64)
    w = np.full(m, fact[k], dtype=np.int64)
    if k == 0:
        return w
    # run lengths of equal consecutive entries in each sorted tuple
    run = np.ones(m, dtype=np.int64)
    for j in range(1, k):
        same = tuples[:, j] == tuples[:, j - 1]
        # when a run ends, divide by its factorial
        w = np.where(same, w, w // fact[run])
        run = np.where(same, run + 1, 1)
    return w // fact[run]


def tuples_to_exponents(tuples: np.ndarray, columns: np.ndarray, n_vars: int) -> np.ndarray:
    """Exponent rows of the monomials ``prod_j x_{columns[i_j]}`` for index tuples ``i``.

    >>> import numpy as np
    >>> tuples_to_exponents(np.array([[0, 0, 1]]), np.array([0, 2]), 3).tolist()
    [[2, 0, 1]]
    """
    tuples = np.asarray(tuples, dtype=np.int64)
    out = np.zeros((len(tuples), n_vars), dtype=EXP_DTYPE)
    cols = np.asarray(columns, dtype=np.int64)[tuples] if tuples.size else tuples
    rows = np.repeat(np.arange(len(tuples)), tuples.shape[1])
    np.add.at(out, (rows, cols.ravel()), 1)
    return out


def tuple_keys(tuples: np.ndarray, n: int) -> np.ndarray:
    """Lexicographic integer keys of index tuples (``((i1*n + i2)*n + ...)``), monotone in lex order.

    >>> import numpy as np
    >>> tuple_keys(np.array([[0, 1], [1, 1]]), 3).tolist()
    [1, 4]
    """
    tuples = np.asarray(tuples, dtype=np.int64)
    key = np.zeros(tuples.shape[:-1], dtype=np.int64)
    for j in range(tuples.shape[-1]):
        key = key * n + tuples[..., j]
    return key


__all__ = [
    "EXP_DTYPE", "LinearKey", "unique_keys", "hash_rows", "unique_rows", "MonomialIndex",
    "divisible_by_any", "monomials_up_to", "count_monomials", "series_counts", "power_series_counts",
    "to_multiset", "index_tuples", "orbit_weights", "tuples_to_exponents", "tuple_keys",
]

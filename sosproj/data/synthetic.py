"""Synthetic binary datasets with planted correlations (dense) and bounded row sparsity.

Both generators take ``rng`` per SPEC 7 (``None`` = fresh entropy, an ``int`` seed, a
``Generator``) and return data only (no privacy claim: they are for tests and benchmarks).

Examples
--------
>>> D = planted_binary(200, 8, rng=0)
>>> D.shape, D.dtype.name
((200, 8), 'uint8')
>>> S = sparse_binary(100, 50, 3, rng=0)
>>> int(S.sum(axis=1).max()) <= 3
True
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from sosproj.rng import RngLike, as_generator
from sosproj.validation import check_int, check_memory, check_positive

__all__ = ["planted_binary", "sparse_binary"]


def planted_binary(m: int, n: int, *, n_clusters: int = 3, concentration: float = 0.5,
                   rng: RngLike = None) -> np.ndarray:
    """Dense binary data from a mixture of product distributions (planted correlations).

    Each row picks one of ``n_clusters`` latent clusters (uniform); attribute ``i`` of a row
    in cluster ``c`` is one with probability ``p[c, i] ~ Beta(concentration, concentration)``.
    Small ``concentration`` gives near-deterministic clusters, hence strong correlations
    between attributes of all orders. Returns a ``(m, n)`` ``uint8`` array.

    >>> planted_binary(5, 3, rng=1).tolist()[0] in ([0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1],
    ...                                              [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1])
    True
    """
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=1)
    n_clusters = check_int(n_clusters, "n_clusters", minimum=1)
    a = check_positive(concentration, "concentration")
    check_memory(2.0 * m * n + 8.0 * n_clusters * n, "the synthetic dataset")
    g = as_generator(rng)
    p = g.beta(a, a, size=(n_clusters, n))
    z = g.integers(0, n_clusters, size=m)
    return (g.random((m, n)) < p[z]).astype(np.uint8)


def sparse_binary(m: int, n: int, t: int, *, n_baskets: int = 5, basket_prob: float = 0.5,
                  zipf: float = 1.1, rng: RngLike = None) -> sp.csr_matrix:
    """``t``-sparse binary rows (CSR ``int8``): planted "baskets" plus Zipf-popular items.

    Each row draws its number of ones uniformly in ``1..t``. With probability
    ``basket_prob`` the row starts from one of ``n_baskets`` fixed item sets (of size
    ``<= t``, planted co-occurrences); remaining slots are filled with items drawn with
    Zipf-like popularity ``(i+1)^-zipf``. No row has more than ``t`` ones.

    >>> S = sparse_binary(20, 10, 2, rng=3)
    >>> S.shape, bool(S.max() == 1)
    ((20, 10), True)
    """
    m = check_int(m, "m", minimum=1)
    n = check_int(n, "n", minimum=1)
    t = check_int(t, "t", minimum=1, maximum=n)
    n_baskets = check_int(n_baskets, "n_baskets", minimum=1)
    check_positive(zipf, "zipf")
    if not 0.0 <= float(basket_prob) <= 1.0:
        from sosproj.errors import InvalidParameterError
        raise InvalidParameterError("basket_prob must lie in [0, 1]")
    check_memory(24.0 * m * t, "the synthetic sparse dataset")
    g = as_generator(rng)
    pop = (np.arange(n) + 1.0) ** (-float(zipf))
    pop /= pop.sum()
    baskets = [g.choice(n, size=int(g.integers(1, t + 1)), replace=False, p=pop) for _ in range(n_baskets)]
    sizes = g.integers(1, t + 1, size=m)
    use_basket = g.random(m) < basket_prob
    which = g.integers(0, n_baskets, size=m)
    rows, cols = [], []
    for r in range(m):
        items: set[int] = set()
        if use_basket[r]:
            items.update(int(i) for i in baskets[which[r]][: sizes[r]])
        need = int(sizes[r]) - len(items)
        while need > 0:
            cand = g.choice(n, size=need, p=pop)
            for c in cand:
                if len(items) < sizes[r]:
                    items.add(int(c))
            need = int(sizes[r]) - len(items)
        rows.extend([r] * len(items))
        cols.extend(sorted(items))
    data = np.ones(len(rows), dtype=np.int8)
    return sp.csr_matrix((data, (np.array(rows), np.array(cols))), shape=(m, n), dtype=np.int8)

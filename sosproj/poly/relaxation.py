r"""Moment relaxations: moment and localizing matrices as sparse linear maps of the moment vector.

For a system :math:`K = \{h_j = 0,\ g_i \ge 0\}` and an even degree :math:`2d`, a
degree-:math:`2d` pseudo-expectation :math:`\tilde{\mathbb E}` satisfying the
equalities is a linear functional on :math:`\mathbb{R}[x]_{\le 2d}/I`; it is determined
by its *pseudo-moments* :math:`y_b = \tilde{\mathbb E}[b]` on the standard monomials
:math:`b` of degree :math:`\le 2d` (see :mod:`sosproj.poly.groebner`), with
:math:`y_1 = 1`. The Lasserre conditions are

* moment matrix :math:`M_d(y)_{u,v} = \tilde{\mathbb E}[\mathrm{NF}(u v)] \succeq 0`,
  :math:`u, v` standard monomials of degree :math:`\le d`;
* localizing matrices :math:`M_{d_i}(g_i\, y)_{u,v} = \tilde{\mathbb E}[\mathrm{NF}(g_i u v)] \succeq 0`,
  :math:`\deg u, \deg v \le d_i = \lfloor (2d - \deg g_i)/2 \rfloor`;
* for systems built with ``reduce=False``: :math:`\tilde{\mathbb E}[h_j m] = 0` for every
  monomial :math:`m` with :math:`\deg(h_j m) \le 2d`, as explicit linear equalities.

Every block is stored as a CSR matrix ``A`` with ``vec(M(y)) = A @ y`` (row-major),
built by adding exponent vectors of basis pairs with numpy, hashing the sums,
reducing each *distinct* monomial once and assembling sparse products; no Python
loop runs over matrix entries. ``readout(k)`` maps :math:`y` to the orbit values
:math:`\tilde{\mathbb E}[x^\alpha]` of the symmetric tensor
:math:`\tilde{\mathbb E}[x^{\otimes k}]` over the readout variables.

An odd ``degree`` is rounded up to the next even number (a degree-:math:`\ell`
pseudo-distribution only tests squares of degree :math:`\le \ell/2`, so rounding up
keeps every moment of degree :math:`\ell` constrained); ``R.degree`` is the value used.

Examples
--------
>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> R = MomentRelaxation(unit_ball(3), 4)
>>> R.n_moments, [(b.name, b.order) for b in R.psd_blocks]
(35, [('moment', 10), ('unit_norm', 4)])
>>> y = R.moments_of(np.array([[0.6, 0.0, 0.8], [0.0, -1.0, 0.0]]))
>>> R.check(y).ok
True
>>> ro = R.readout(2)
>>> np.allclose(ro.to_tensor(ro.matrix @ y), (np.outer([.6, 0, .8], [.6, 0, .8]) + np.diag([0, 1, 0])) / 2)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from sosproj.errors import InputTypeError, InvalidInputError
from sosproj.poly.monomials import (
    EXP_DTYPE,
    LinearKey,
    MonomialIndex,
    index_tuples,
    orbit_weights,
    to_multiset,
    tuple_keys,
    tuples_to_exponents,
    unique_rows,
)
from sosproj.poly.polynomial import Polynomial
from sosproj.poly.system import PolySystem
from sosproj.validation import check_array, check_int, check_memory, check_nonnegative, format_bytes


@dataclass(frozen=True, eq=False)
class PSDBlock:
    """One positive-semidefinite constraint ``reshape(A @ y, (order, order)) >= 0``.

    Attributes
    ----------
    name : ``"moment"`` or the inequality's label.
    order : the matrix order (size of the row/column basis).
    A : CSR matrix of shape ``(order * order, n_moments)``, row-major ``vec``; symmetric in the
        sense ``A[i*order + j] == A[j*order + i]``.
    kind : ``"moment"`` or ``"localizing"``.
    basis : int array ``(order, n_vars)``: exponent rows of the row/column monomials.
    degree : the degree of the constraint polynomial (0 for the moment matrix).

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> b = MomentRelaxation(unit_ball(2), 2).psd_blocks[0]
    >>> b.name, b.order, b.A.shape, b.basis.tolist()
    ('moment', 3, (9, 6), [[0, 0], [1, 0], [0, 1]])
    """

    name: str
    order: int
    A: sp.csr_matrix
    kind: str = "moment"
    basis: np.ndarray | None = field(default=None, repr=False)
    degree: int = 0

    def matrix(self, y: np.ndarray) -> np.ndarray:
        """The dense symmetric matrix ``M(y)`` (``A @ y`` reshaped).

        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> R = MomentRelaxation(unit_ball(1), 2)
        >>> R.psd_blocks[0].matrix(np.array([1.0, 0.5, 0.3])).tolist()
        [[1.0, 0.5], [0.5, 0.3]]
        """
        return np.asarray(self.A @ np.asarray(y, dtype=np.float64)).reshape(self.order, self.order)


@dataclass(frozen=True, eq=False)
class Readout:
    r"""Linear map from the moment vector to the orbit values of :math:`\tilde{\mathbb E}[x^{\otimes k}]`.

    Attributes
    ----------
    matrix : CSR ``(n_orbits, n_moments)``: orbit values ``v = matrix @ y``, ``v[o] = E[x^alpha_o]``.
    orbits : int array ``(n_orbits, k)`` of sorted index tuples over the readout variables
        (positions ``0..n-1`` within ``system.tensor_vars``), lexicographic.
    weights : int array ``(n_orbits,)``: number of index tuples of ``[n]^k`` in each orbit.
    n, k : tensor dimension and order.

    The Frobenius norm of the full tensor is the weighted norm of the orbit vector:
    :math:`\|T\|_F^2 = \sum_o w_o v_o^2`.

    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> ro = MomentRelaxation(unit_ball(2), 2).readout(2)
    >>> ro.orbits.tolist(), ro.weights.tolist(), ro.matrix.shape
    ([[0, 0], [0, 1], [1, 1]], [1, 2, 1], (3, 6))
    """

    matrix: sp.csr_matrix
    orbits: np.ndarray
    weights: np.ndarray
    n: int
    k: int
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_orbits(self) -> int:
        return int(len(self.orbits))

    def orbit_ids(self) -> np.ndarray:
        """Orbit id of every entry of the full ``(n,)*k`` tensor, flattened in C order (cached)."""
        ids = self._cache.get("ids")
        if ids is None:
            n, k = self.n, self.k
            check_memory(8.0 * (k + 2) * n ** k, f"the index map of an order-{k} tensor of dimension {n}")
            if k == 0:
                ids = np.zeros(1, dtype=np.int64)
            else:
                full = np.indices((n,) * k, dtype=np.int64).reshape(k, -1).T
                full.sort(axis=1)
                keys = tuple_keys(full, n)
                ids = np.searchsorted(tuple_keys(self.orbits, n), keys)
            self._cache["ids"] = ids
        return ids

    def to_tensor(self, v: Any) -> np.ndarray:
        """The full symmetric ``(n,)*k`` tensor whose orbit values are ``v``.

        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> ro = MomentRelaxation(unit_ball(2), 2).readout(2)
        >>> ro.to_tensor([1.0, 2.0, 3.0]).tolist()
        [[1.0, 2.0], [2.0, 3.0]]
        """
        v = check_array(v, "v", ndim=1, shape=(self.n_orbits,))
        return v[self.orbit_ids()].reshape((self.n,) * self.k)

    def from_tensor(self, T: Any) -> np.ndarray:
        """Orbit values of a (not necessarily symmetric) tensor: the AVERAGE of each orbit's entries.

        This is the Euclidean projection onto symmetric tensors, expressed in orbit coordinates.

        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> ro = MomentRelaxation(unit_ball(2), 2).readout(2)
        >>> ro.from_tensor(np.array([[1.0, 2.0], [4.0, 3.0]])).tolist()
        [1.0, 3.0, 3.0]
        """
        T = check_array(T, "T", shape=(self.n,) * self.k)
        sums = np.bincount(self.orbit_ids(), weights=T.ravel(), minlength=self.n_orbits)
        return sums / self.weights

    def __call__(self, y: Any) -> np.ndarray:
        """Orbit values ``matrix @ y``."""
        return np.asarray(self.matrix @ np.asarray(y, dtype=np.float64))


@dataclass(frozen=True)
class MomentCheck:
    """Report of :meth:`MomentRelaxation.check`.

    Attributes
    ----------
    ok : every block's minimum eigenvalue ``>= -tol * scale`` and every equality residual ``<= tol * scale``
        (``scale = max(1, max |y|)``).
    min_eigenvalues : ``{block name: smallest eigenvalue}``.
    equality_residual : ``max |A_eq y - b_eq|``.
    worst_block : name of the block with the most negative (relative) eigenvalue.
    tol : the tolerance used.

    >>> import numpy as np
    >>> from sosproj.poly import MomentRelaxation, unit_ball
    >>> rep = MomentRelaxation(unit_ball(1), 2).check(np.array([1.0, 0.0, 2.0]))   # E[x^2] = 2 > 1
    >>> rep.ok, rep.worst_block, round(rep.min_eigenvalues["unit_norm"], 6)
    (False, 'unit_norm', -1.0)
    """

    ok: bool
    min_eigenvalues: dict[str, float]
    equality_residual: float
    worst_block: str
    tol: float


class MomentRelaxation:
    r"""The degree-``degree`` moment (Lasserre / sum-of-squares) relaxation of a :class:`PolySystem`.

    Parameters
    ----------
    system : the polynomial system.
    degree : the relaxation degree :math:`2d` (odd values are rounded up; ``R.degree``).
    memory_limit : bytes; refuse (``ResourceLimitError`` carrying the estimate) before building
        when :meth:`estimate` exceeds it (default: the budget of
        :func:`sosproj.validation.check_memory`).

    Attributes
    ----------
    n_moments : length of the reduced moment vector ``y``; ``y[0]`` is the constant monomial.
    monomials : int array ``(n_moments, n_vars)``: exponent rows of the standard monomials, graded.
    psd_blocks : list of :class:`PSDBlock`: the moment matrix first, then one localizing matrix per
        inequality with :math:`\deg g \le` ``degree`` (order 1 blocks are scalar rows ``>= 0``).
    equalities : ``(A_eq CSR (p, n_moments), b_eq (p,))``: ``y_0 = 1`` plus the localizing
        equalities the reduction does not remove.
    skipped_inequalities : names of inequalities of degree above ``degree`` (no block).

    >>> from sosproj.poly import boolean_cube
    >>> R = MomentRelaxation(boolean_cube(4), 4)
    >>> R.n_moments, R.psd_blocks[0].order, R.equalities[0].shape
    (16, 11, (1, 16))
    """

    def __init__(self, system: PolySystem, degree: int, *, memory_limit: float | None = None) -> None:
        if not isinstance(system, PolySystem):
            raise InputTypeError(f"system must be a PolySystem (e.g. sosproj.poly.unit_ball(n)); "
                                 f"got {type(system).__name__}")
        self.system = system
        self.requested_degree = check_int(degree, "degree", minimum=1)
        self.degree = self.requested_degree + (self.requested_degree % 2)
        est = self.estimate(system, self.degree)
        self._estimate = est
        if memory_limit is not None:
            check_nonnegative(memory_limit, "memory_limit")
        check_memory(est["bytes"], f"the degree-{self.degree} moment relaxation of {system.name} "
                     f"({est['n_moments']} moments, blocks up to order {max(est['block_orders'])}, "
                     f"about {est['nnz']} nonzeros)", limit_bytes=memory_limit)
        self._readouts: dict[int, Readout] = {}
        self._build()

    # ---------------------------------------------------------------- sizes
    @classmethod
    def estimate(cls, system: PolySystem, degree: int) -> dict[str, Any]:
        """Sizes and memory of the relaxation, computed without building it.

        Returns ``dict(degree, n_moments, block_names, block_orders, nnz, nnz_bound,
        n_equalities, bytes, bytes_text)``. Counts are exact (closed-form Hilbert series where
        the reduction is known, else an enumeration of standard monomials only). ``nnz``
        counts one nonzero per term of each block entry: with single-term reductions (free,
        Boolean, :math:`\\mathcal P_t`) it is an upper bound, exact for the moment matrix
        (``nnz_bound == "upper"``); with multi-term normal forms (Groebner route) it is a rough
        estimate (``"estimate"``). ``bytes`` covers the stored blocks plus the peak of the largest
        block's assembly (conservative: 1.4-2.3x the measured peak on the built-in systems).

        >>> from sosproj.poly import unit_ball
        >>> e = MomentRelaxation.estimate(unit_ball(30), 4)
        >>> e["n_moments"], e["block_orders"]
        (46376, [496, 31])
        """
        if not isinstance(system, PolySystem):
            raise InputTypeError("system must be a PolySystem")
        D = check_int(degree, "degree", minimum=1)
        D += D % 2
        red = system.reduction
        counts = red.counts_by_degree(D)
        cum = np.cumsum(counts).tolist()
        n_moments = int(cum[D])
        nv = system.n_vars
        names, orders, degs, nterms = ["moment"], [int(cum[D // 2])], [0], [1]
        for g, name in zip(system.inequalities, system.inequality_names):
            if g.degree > D:
                continue
            names.append(name)
            orders.append(int(cum[(D - g.degree) // 2]))
            degs.append(g.degree)
            nterms.append(max(1, g.n_terms))
        terms_nf = red.max_terms or 1
        nnz = 0
        stored = 0.0
        peak = 0.0
        for o, t in zip(orders, nterms):
            block_nnz = o * o * (t * terms_nf if red.max_terms is None else min(t * terms_nf, n_moments))
            nnz += block_nnz
            stored += 12.0 * block_nnz + 8.0 * (o * o + 1)
            half = o * (o + 1) / 2
            # pair sums (int16), hash keys, inverse, selection matrix, half and full products
            peak = max(peak, half * t * (2.0 * nv + 8 + 8 + 8 + 12) + 2 * 12.0 * block_nnz + 16.0 * o * o)
        eq_rows = 1
        for h in system.explicit_equalities:
            if h.degree <= D:
                eq_rows += int(cum[D - h.degree])
        nnz_eq = eq_rows * max(1, max((h.n_terms for h in system.explicit_equalities), default=1))
        stored += 12.0 * nnz_eq
        base = n_moments * (2.0 * nv * 2 + 8 * 3)
        total = base + stored + peak
        return {"degree": D, "n_moments": n_moments, "block_names": names, "block_orders": orders,
                "nnz": int(nnz + nnz_eq), "nnz_bound": "estimate" if red.max_terms is None else "upper",
                "n_equalities": eq_rows, "bytes": int(total), "bytes_text": format_bytes(total)}

    def estimate_size(self) -> dict[str, Any]:
        """The :meth:`estimate` of this relaxation (computed before it was built).

        >>> from sosproj.poly import MomentRelaxation, boolean_cube
        >>> MomentRelaxation(boolean_cube(3), 2).estimate_size()["block_orders"]
        [4]
        """
        return dict(self._estimate)

    # ---------------------------------------------------------------- build
    def _build(self) -> None:
        system, D = self.system, self.degree
        red = system.reduction
        by_deg = red.standard_monomials(D)
        self.monomials = np.asarray(by_deg, dtype=EXP_DTYPE)
        self.monomials.flags.writeable = False        # keys the cache of :meth:`_multiset_index`
        self.n_moments = int(len(self.monomials))
        self._index = MonomialIndex(self.monomials)
        deg_of = self.monomials.sum(axis=1)
        self._deg_of = deg_of
        self._key = LinearKey(system.n_vars, D)

        def basis(h: int) -> np.ndarray:
            return self.monomials[deg_of <= h]

        one = Polynomial.from_terms({tuple([0] * system.n_vars): 1}, system.n_vars)
        blocks = [self._block("moment", "moment", basis(D // 2), one)]
        skipped = []
        for g, name in zip(system.inequalities, system.inequality_names):
            if g.degree > D:
                skipped.append(name)
                continue
            blocks.append(self._block(name, "localizing", basis((D - g.degree) // 2), g))
        self.psd_blocks: list[PSDBlock] = blocks
        self.skipped_inequalities = skipped
        # equalities: y_0 = 1, then E[h m] = 0 for equalities the reduction does not remove
        rows = [sp.csr_matrix(([1.0], ([0], [0])), shape=(1, self.n_moments))]
        b = [np.ones(1)]
        for h in system.explicit_equalities:
            if h.degree > D:
                continue
            mult = basis(D - h.degree)
            M = self._poly_times(mult, h)
            rows.append(M)
            b.append(np.zeros(M.shape[0]))
        A_eq = sp.vstack(rows, format="csr")
        A_eq.eliminate_zeros()
        self.equalities: tuple[sp.csr_matrix, np.ndarray] = (A_eq, np.concatenate(b))

    def _reduce_matrix(self, exps: np.ndarray) -> sp.csr_matrix:
        """CSR ``F`` with ``F[r] @ y = E[NF(x^{exps[r]})]`` for distinct rows ``exps``."""
        rows, out, coef = self.system.reduction.reduce_rows(exps)
        cols = self._index.lookup(np.asarray(out, dtype=EXP_DTYPE))
        F = sp.csr_matrix((coef, (rows, cols)), shape=(len(exps), self.n_moments))
        F.sum_duplicates()
        return F

    def _poly_times(self, mult: np.ndarray, g: Polynomial) -> sp.csr_matrix:
        """Rows ``E[NF(g * m)]`` for the monomials ``m`` in ``mult``, as a CSR matrix (len(mult), n_moments)."""
        T = g.n_terms
        m = len(mult)
        sums = (mult[None, :, :].astype(EXP_DTYPE) + g.exps[:, None, :].astype(EXP_DTYPE)).reshape(T * m, -1)
        uniq, inv = unique_rows(sums)
        F = self._reduce_matrix(uniq)
        Q = sp.csr_matrix((np.repeat(g.float_coeffs(), m), (np.tile(np.arange(m), T), inv)),
                          shape=(m, len(uniq)))
        out = (Q @ F).tocsr()
        out.eliminate_zeros()
        return out

    def _block(self, name: str, kind: str, basis: np.ndarray, g: Polynomial) -> PSDBlock:
        """Assemble ``vec(M(g y))`` over ``basis``: entries ``E[NF(g u v)]``, one NF per distinct monomial."""
        N = len(basis)
        iu, ju = np.triu_indices(N)
        M = len(iu)
        T = g.n_terms
        # linear keys: key(u v x^t) = key(u) + key(v) + key(x^t); no pair sums are materialized
        kb = self._key.keys(basis)
        kt = self._key.keys(g.exps)
        with np.errstate(over="ignore"):
            keys = [((b[iu] + b[ju])[None, :] + t[:, None]).ravel() for b, t in zip(kb, kt)]
        del kb
        res = self._key.unique(keys)
        del keys
        if res is not None:
            first, inv = res
            t_of, p_of = np.divmod(first, M)
            uniq = (basis[iu[p_of]] + basis[ju[p_of]] + g.exps[t_of].astype(EXP_DTYPE)).astype(EXP_DTYPE)
        else:  # hash collision detected: exact path on materialized exponent rows
            sums = ((basis[iu] + basis[ju])[None, :, :] + g.exps[:, None, :].astype(EXP_DTYPE))
            uniq, inv = unique_rows(sums.reshape(T * M, -1).astype(EXP_DTYPE))
            del sums
        F = self._reduce_matrix(uniq)
        # full row-major map: (i, j) -> position of (min, max) in the upper-triangle list
        pos = np.empty((N, N), dtype=np.int64)
        pos[iu, ju] = np.arange(M)
        pos[ju, iu] = np.arange(M)
        if T == 1 and g.coeffs[0] == 1:
            A = F[inv[pos.ravel()]].tocsr()
        else:
            Q = sp.csr_matrix((np.repeat(g.float_coeffs(), M), (np.tile(np.arange(M), T), inv)),
                              shape=(M, len(uniq)))
            A = (Q @ F).tocsr()[pos.ravel()].tocsr()
        del inv, pos
        A.eliminate_zeros()
        A.sort_indices()
        return PSDBlock(name=name, order=int(N), A=A, kind=kind, basis=basis, degree=g.degree)

    def expectation_map(self, monomials: Any) -> sp.csr_matrix:
        r"""CSR ``(m, n_moments)``: row ``r`` times ``y`` is :math:`\tilde{\mathbb E}[x^{a_r}]`, exactly reduced.

        ``monomials``: int array ``(m, n_vars)`` of exponent rows of degree ``<= degree`` (any
        monomials; each is reduced to its exact normal form).

        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, boolean_cube
        >>> R = MomentRelaxation(boolean_cube(3, scale=0.5), 4)
        >>> F = R.expectation_map(np.array([[2, 1, 0]]))       # E[x0^2 x1] = 0.5 E[x0 x1]
        >>> R.monomials[F.indices].tolist(), F.data.tolist()
        ([[1, 1, 0]], [0.5])
        """
        E = check_array(monomials, "monomials", ndim=2, shape=(None, self.system.n_vars), dtype=np.float64)
        if np.any(E < 0) or np.any(E != np.round(E)):
            raise InvalidInputError("monomials must be non-negative integer exponent rows")
        if np.any(E.sum(axis=1) > self.degree):
            raise InvalidInputError(f"monomials must have total degree <= {self.degree} (the relaxation degree)")
        E = E.astype(EXP_DTYPE)
        uniq, inv = unique_rows(E)
        return self._reduce_matrix(uniq)[inv].tocsr()

    # ---------------------------------------------------------------- readout
    def readout(self, k: int) -> Readout:
        r"""The map :math:`y \mapsto (\tilde{\mathbb E}[x^\alpha])_\alpha` over orbits of :math:`[n]^k`.

        ``n = len(system.tensor_vars)``; ``k`` must be ``<= degree``.

        >>> from sosproj.poly import MomentRelaxation, boolean_cube
        >>> ro = MomentRelaxation(boolean_cube(3), 4).readout(3)
        >>> ro.n_orbits, ro.weights.tolist()[:4]
        (10, [1, 3, 3, 3])
        """
        k = check_int(k, "k", minimum=1, maximum=self.degree)
        ro = self._readouts.get(k)
        if ro is None:
            tv = self.system.tensor_vars
            n = len(tv)
            check_memory(math.comb(n + k - 1, k) * (8.0 * k + 40), f"the order-{k} readout")
            orbits = index_tuples(n, k)
            exps = tuples_to_exponents(orbits, tv, self.system.n_vars)
            F = self._reduce_matrix(exps)
            ro = Readout(matrix=F, orbits=orbits, weights=orbit_weights(orbits), n=n, k=k)
            self._readouts[k] = ro
        return ro

    # ---------------------------------------------------------------- checks
    def check(self, y: Any, tol: float = 1e-8) -> MomentCheck:
        """Is ``y`` a valid pseudo-moment vector? Minimum eigenvalue of every block, equality residuals.

        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> R = MomentRelaxation(unit_ball(2), 2)
        >>> R.check(R.moments_of(np.array([[2.0, 0.0]]), check_support=False)).worst_block
        'unit_norm'
        """
        y = check_array(y, "y", ndim=1, shape=(self.n_moments,))
        tol = check_nonnegative(tol, "tol")
        scale = max(1.0, float(np.max(np.abs(y))))
        mins: dict[str, float] = {}
        worst, worst_val = "moment", np.inf
        for b in self.psd_blocks:
            M = b.matrix(y)
            lam = float(np.linalg.eigvalsh((M + M.T) / 2)[0])
            mins[b.name] = lam
            if lam < worst_val:
                worst, worst_val = b.name, lam
        A_eq, b_eq = self.equalities
        res = float(np.max(np.abs(A_eq @ y - b_eq))) if A_eq.shape[0] else 0.0
        ok = bool(worst_val >= -tol * scale and res <= tol * scale)
        return MomentCheck(ok=ok, min_eigenvalues=mins, equality_residual=res, worst_block=worst, tol=tol)

    def _multiset_index(self) -> np.ndarray:
        """``to_multiset(self.monomials, width=degree, pad=n_vars)``: each standard monomial as ``degree``
        variable indices (``n_vars`` pads, the constant column of :meth:`moments_of`), cached.

        Rebuilding it cost about 10 ms per call at ``n = 30`` (order 496, 46,376 moments; issue 15, session
        n30b), once per candidate point of ``solver="rankone_newton"``. The cache holds the very
        ``monomials`` array it was built from and is rebuilt when ``monomials``, ``degree`` or the
        system's variable count is another object or value; ``monomials`` is read-only, so it cannot change
        in place.
        """
        key = (self.monomials, self.degree, self.system.n_vars)
        hit = self.__dict__.get("_multiset_cache")
        if hit is None or hit[0][0] is not key[0] or hit[0][1:] != key[1:]:
            idx = to_multiset(self.monomials, width=self.degree, pad=self.system.n_vars)
            idx.flags.writeable = False
            hit = (key, idx)
            self.__dict__["_multiset_cache"] = hit
        return hit[1]

    def moments_of(self, points: Any, weights: Any = None, *, check_support: bool = True,
                   tol: float = 1e-9) -> np.ndarray:
        r"""Moment vector :math:`y_b = \sum_r w_r\, b(p_r)` of the atomic measure :math:`\sum_r w_r \delta_{p_r}`.

        ``points``: ``(N, n_vars)`` over all variables, or readout coordinates only where the
        system completes them (for :math:`\mathcal P_t`: ``s = 1[x != 0]``, ``y = |x|``).
        ``weights``: non-negative, summing to 1 (default uniform). The reduced moment vector is
        defined only for points satisfying the equalities; with ``check_support`` (default) points
        that violate an equality by more than ``tol`` are refused (``InvalidInputError``).
        Inequalities are not checked here: :meth:`check` reports them through the localizing blocks.

        >>> import numpy as np
        >>> from sosproj.poly import MomentRelaxation, sparse_ball
        >>> R = MomentRelaxation(sparse_ball(2, 1), 2)
        >>> y = R.moments_of(np.array([[0.0, -0.5]]))      # completes to s = (0, 1), y = (0, 0.5)
        >>> float(y[0]), R.readout(1)(y).tolist(), R.readout(2)(y).tolist()
        (1.0, [0.0, -0.5], [0.0, 0.0, 0.25])
        """
        P = self.system.complete(points)
        N = P.shape[0]
        if weights is None:
            w = np.full(N, 1.0 / N)
        else:
            w = check_array(weights, "weights", ndim=1, shape=(N,))
            if np.any(w < 0) or abs(float(w.sum()) - 1.0) > 1e-9:
                raise InvalidInputError("weights must be non-negative and sum to 1 (a probability measure)")
        if check_support and self.system.equalities:
            H, _ = self.system.residuals(P)
            if np.any(np.abs(H) > tol * max(1.0, float(np.max(np.abs(P))) ** max(h.degree for h in
                                                                              self.system.equalities))):
                raise InvalidInputError(
                    "points must satisfy the system's equalities (the reduced moment vector is defined "
                    "on the variety only); check them with system.contains(points) or pass "
                    "check_support=False")
        idx = self._multiset_index()
        Pext = np.concatenate([P, np.ones((N, 1))], axis=1)
        y = np.zeros(self.n_moments)
        chunk = max(1, int(4_000_000 // max(1, self.n_moments)))
        for s0 in range(0, N, chunk):
            Pc = Pext[s0:s0 + chunk]
            vals = np.ones((len(Pc), self.n_moments))
            for j in range(idx.shape[1]):
                vals *= Pc[:, idx[:, j]]
            y += w[s0:s0 + chunk] @ vals
        return y

    @property
    def block_orders(self) -> list[int]:
        """Orders of the PSD blocks (moment matrix first).

        >>> from sosproj.poly import MomentRelaxation, unit_ball
        >>> MomentRelaxation(unit_ball(4), 4).block_orders
        [15, 5]
        """
        return [b.order for b in self.psd_blocks]

    def __repr__(self) -> str:
        return (f"MomentRelaxation({self.system.name}, degree={self.degree}, n_moments={self.n_moments}, "
                f"blocks={self.block_orders})")


__all__ = ["MomentRelaxation", "PSDBlock", "Readout", "MomentCheck"]

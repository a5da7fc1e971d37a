r"""The cones of sosproj's conic form and the scaled ``svec`` convention: one home for both.

Every solver of :mod:`sosproj.sdp` (the direct backends, sosproj's own ADMM, the
cvxpy reference, the answer checks of :mod:`sosproj.sdp.solve`) reads cones,
slices rows and projects through this module.

The cone :math:`\mathcal K = \{0\}^{z} \times \mathbb R_+^{l} \times \mathrm{SOC}_{q_1}
\times\cdots\times \mathcal S_+^{d_1}\times\cdots` is stored **in that row order**
(:class:`Cones`; :meth:`Cones.blocks` yields each block's kind, row slice and size).

A PSD block of order ``d`` occupies ``d(d+1)/2`` rows holding the **scaled
svec** of a symmetric matrix: diagonal entries as is, off-diagonal entries
multiplied by :math:`\sqrt 2`, so that :math:`\langle \mathrm{svec}(X),
\mathrm{svec}(Y)\rangle = \langle X, Y\rangle_F` and the Euclidean projection in
svec coordinates is the Frobenius projection of the matrix. The canonical order is
SCS's: the **lower triangle stacked column by column** ``(0,0), (1,0), ...,
(d-1,0), (1,1), (2,1), ...``. Clarabel wants the **upper triangle column by
column** ``(0,0), (0,1), (1,1), (0,2), ...``; its backend permutes the rows with
:func:`svec_permutation` (tested against both solvers in ``tests/test_sdp_conic.py``).

Projections: :func:`project_soc` (second-order cone, closed form),
:class:`PSDProjector` / :func:`project_psd_svec` (one ``eigh``), :func:`project_cone`
(the whole product cone) and :func:`project_dual_cone` (its dual: the zero cone's
dual is the whole space, the others are self-dual); :func:`cone_violation` measures
the distance to either from eigenvalues only.

Examples
--------
>>> import numpy as np
>>> X = np.array([[1.0, 2.0], [2.0, 3.0]])
>>> svec(X)                      # SCS order: (0,0), (1,0)*sqrt2, (1,1)
array([1.        , 2.82842712, 3.        ])
>>> bool(np.allclose(smat(svec(X), 2), X))
True
>>> svec(X, order="clarabel")    # (0,0), (0,1)*sqrt2, (1,1): same for d = 2
array([1.        , 2.82842712, 3.        ])
>>> [(kind, sl.start, sl.stop) for kind, sl, _ in Cones(zero=1, nonneg=2, psd=(2,)).blocks()]
[('zero', 0, 1), ('nonneg', 1, 3), ('psd', 3, 6)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from sosproj.errors import InvalidInputError, InvalidParameterError

SvecOrder = Literal["scs", "clarabel"]

SQRT2 = float(np.sqrt(2.0))

# ------------------------------------------------------------------ svec helpers


@lru_cache(maxsize=64)
@lru_cache(maxsize=16)
def svec_indices(d: int, order: SvecOrder = "scs") -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices ``(i, j)`` of the svec entries of a ``d x d`` matrix.

    ``order="scs"``: lower triangle (``i >= j``) column-major; ``order="clarabel"``:
    upper triangle (``i <= j``) column-major.

    >>> svec_indices(3, "scs")[0].tolist(), svec_indices(3, "scs")[1].tolist()
    ([0, 1, 2, 1, 2, 2], [0, 0, 0, 1, 1, 2])
    >>> svec_indices(3, "clarabel")[0].tolist(), svec_indices(3, "clarabel")[1].tolist()
    ([0, 0, 1, 0, 1, 2], [0, 1, 1, 2, 2, 2])
    """
    if order == "scs":           # lower triangle, column-major: (i, j) for i >= j
        jj, ii = np.triu_indices(d)
    elif order == "clarabel":    # upper triangle, column-major: (i, j) for i <= j
        ii, jj = np.tril_indices(d)
        ii, jj = jj, ii
    else:
        raise InvalidParameterError("order must be 'scs' or 'clarabel'")
    i = np.ascontiguousarray(ii, dtype=np.int64)
    j = np.ascontiguousarray(jj, dtype=np.int64)
    i.setflags(write=False)
    j.setflags(write=False)
    return i, j


def svec_dim(d: int) -> int:
    """Length ``d(d+1)/2`` of the svec of a ``d x d`` symmetric matrix.

    >>> svec_dim(4)
    10
    """
    return d * (d + 1) // 2


def svec(X: np.ndarray, order: SvecOrder = "scs") -> np.ndarray:
    r"""Scaled svec of a symmetric matrix (off-diagonal entries times :math:`\sqrt2`).

    Uses the symmetric part of ``X``.

    >>> svec(np.eye(2))
    array([1., 0., 1.])
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[0]
    i, j = svec_indices(d, order)
    Xs = 0.5 * (X + X.T)
    v = Xs[i, j].copy()
    v[i != j] *= SQRT2
    return v


def smat(v: np.ndarray, d: int, order: SvecOrder = "scs") -> np.ndarray:
    """Inverse of :func:`svec`: the symmetric ``d x d`` matrix of a scaled svec.

    >>> smat(np.array([1.0, np.sqrt(2.0), 3.0]), 2)
    array([[1., 1.],
           [1., 3.]])
    """
    v = np.asarray(v, dtype=float)
    if v.shape != (svec_dim(d),):
        raise InvalidInputError(f"v must have length d(d+1)/2 = {svec_dim(d)}; got shape {v.shape}")
    i, j = svec_indices(d, order)
    vals = v.copy()
    vals[i != j] /= SQRT2
    X = np.zeros((d, d))
    X[i, j] = vals
    X[j, i] = vals
    return X


@lru_cache(maxsize=64)
def svec_permutation(d: int, source: SvecOrder = "scs", target: SvecOrder = "clarabel") -> np.ndarray:
    """Permutation ``p`` with ``svec(X, target) == svec(X, source)[p]``.

    >>> import numpy as np
    >>> X = np.arange(9.0).reshape(3, 3); X = X + X.T
    >>> p = svec_permutation(3)
    >>> bool(np.allclose(svec(X, "scs")[p], svec(X, "clarabel")))
    True
    """
    si, sj = svec_indices(d, source)
    ti, tj = svec_indices(d, target)
    pos = {}
    for k, (a, b) in enumerate(zip(si.tolist(), sj.tolist())):
        pos[(min(a, b), max(a, b))] = k
    p = np.array([pos[(min(a, b), max(a, b))] for a, b in zip(ti.tolist(), tj.tolist())], dtype=np.int64)
    p.setflags(write=False)
    return p


@lru_cache(maxsize=64)
def svec_operator(d: int, order: SvecOrder = "scs") -> sp.csr_matrix:
    r"""Sparse map ``S`` with ``S @ vec(X) = svec(X)`` for symmetric ``X`` (row-major ``vec``).

    Off-diagonal rows average the two mirrored entries, each with weight
    :math:`\sqrt2/2`, so ``S`` also symmetrizes.

    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [2.0, 3.0]])
    >>> bool(np.allclose(svec_operator(2) @ X.ravel(), svec(X)))
    True
    """
    i, j = svec_indices(d, order)
    m = len(i)
    diag = i == j
    r_d = np.flatnonzero(diag)
    r_o = np.flatnonzero(~diag)
    rows = np.concatenate([r_d, r_o, r_o])
    cols = np.concatenate([i[diag] * d + j[diag], i[~diag] * d + j[~diag], j[~diag] * d + i[~diag]])
    vals = np.concatenate([np.ones(len(r_d)), np.full(2 * len(r_o), SQRT2 / 2)])
    return sp.csr_matrix((vals, (rows, cols)), shape=(m, d * d))


# ------------------------------------------------------------------------ cones


@dataclass(frozen=True)
class Cones:
    """Cone dimensions, in row order: zero, nonnegative, second-order blocks, PSD blocks.

    ``soc`` lists the length of each second-order cone ``{(t, u): ||u|| <= t}``;
    ``psd`` lists the matrix order ``d`` of each PSD block (``d(d+1)/2`` rows each).

    >>> Cones(zero=1, psd=(3,)).dim
    7
    """

    zero: int = 0
    nonneg: int = 0
    soc: tuple[int, ...] = ()
    psd: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.zero < 0 or self.nonneg < 0 or any(q < 1 for q in self.soc) or any(d < 1 for d in self.psd):
            raise InvalidParameterError("cone dimensions must be non-negative (SOC and PSD sizes >= 1)")
        object.__setattr__(self, "soc", tuple(int(q) for q in self.soc))
        object.__setattr__(self, "psd", tuple(int(d) for d in self.psd))

    @property
    def dim(self) -> int:
        """Total number of rows."""
        return self.zero + self.nonneg + sum(self.soc) + sum(svec_dim(d) for d in self.psd)

    def psd_slices(self) -> list[slice]:
        """Row slices of the PSD blocks.

        >>> Cones(zero=1, psd=(2, 1)).psd_slices()
        [slice(1, 4, None), slice(4, 5, None)]
        """
        start = self.zero + self.nonneg + sum(self.soc)
        out = []
        for d in self.psd:
            out.append(slice(start, start + svec_dim(d)))
            start += svec_dim(d)
        return out

    def soc_slices(self) -> list[slice]:
        """Row slices of the second-order cones."""
        start = self.zero + self.nonneg
        out = []
        for q in self.soc:
            out.append(slice(start, start + q))
            start += q
        return out

    def blocks(self) -> Iterator[tuple[str, slice, int]]:
        """``(kind, rows, size)`` of every block in row order.

        ``kind`` is ``"zero"``, ``"nonneg"``, ``"soc"`` or ``"psd"``; ``size`` is the
        number of rows for the first three and the matrix order ``d`` for PSD blocks.

        >>> [(k, s.start, s.stop, n) for k, s, n in Cones(nonneg=1, soc=(3,)).blocks()]
        [('nonneg', 0, 1, 1), ('soc', 1, 4, 3)]
        """
        if self.zero:
            yield "zero", slice(0, self.zero), self.zero
        if self.nonneg:
            yield "nonneg", slice(self.zero, self.zero + self.nonneg), self.nonneg
        for sl, q in zip(self.soc_slices(), self.soc):
            yield "soc", sl, q
        for sl, d in zip(self.psd_slices(), self.psd):
            yield "psd", sl, d

    def as_dict(self) -> dict[str, Any]:
        """Plain dictionary (JSON friendly)."""
        return {"zero": self.zero, "nonneg": self.nonneg, "soc": list(self.soc), "psd": list(self.psd)}


def single_thread_blas() -> Any:
    """The BLAS thread policy of :mod:`sosproj.threads` (one thread unless the user overrides it).

    On an oversubscribed machine a multi-threaded ``eigh`` of order 200-500 was
    measured 40x slower than single-threaded; the projections and checks here are
    small dense problems that gain nothing from threads.
    """
    from sosproj.threads import blas_threads

    return blas_threads()


def project_soc(v: np.ndarray) -> np.ndarray:
    r"""Euclidean projection of ``v = (t, u)`` onto :math:`\{(t, u): \|u\|_2 \le t\}` (closed form).

    >>> project_soc(np.array([0.0, 2.0]))
    array([1., 1.])
    """
    t, u = v[0], v[1:]
    nu = float(np.linalg.norm(u))
    if nu <= t:
        return v
    if nu <= -t:
        return np.zeros_like(v)
    a = 0.5 * (t + nu)
    return np.concatenate([[a], a * u / nu])


class PSDProjector:
    r"""Projection of a scaled-svec block (SCS order) onto the PSD cone :math:`\mathcal S_+^d`.

    One ``eigh`` of :math:`X = \mathrm{smat}(v)`; the projection
    :math:`\sum_i \max(\lambda_i, 0) u_i u_i^\top` is formed from the smaller of the
    positive and the negative eigenspaces (:math:`X - \sum_{\lambda_i<0}\lambda_i u_i u_i^\top`
    when fewer eigenvalues are negative). The matrix buffer and index maps are kept
    between calls (iterative solvers call it once per iteration and block).

    >>> P = PSDProjector(2)
    >>> P(svec(np.diag([1.0, -1.0])))
    array([1., 0., 0.])
    """

    def __init__(self, d: int) -> None:
        self.d = d
        i, j = svec_indices(d, "scs")
        self.lower = i * d + j
        self.upper = j * d + i
        self.scale = np.where(i == j, 1.0, SQRT2)
        self.buf = np.zeros((d, d))

    def matrix(self, v: np.ndarray) -> np.ndarray:
        """``smat(v)`` in the kept buffer (overwritten by the next call)."""
        M = self.buf
        vals = v / self.scale
        M.flat[self.lower] = vals
        M.flat[self.upper] = vals
        return M

    def __call__(self, v: np.ndarray) -> np.ndarray:
        d = self.d
        if d == 1:
            return np.maximum(v, 0.0)
        M = self.matrix(v)
        lam, V = np.linalg.eigh(M)
        neg = int(np.searchsorted(lam, 0.0))
        if neg == 0:
            return v.copy()
        if neg == d:
            return np.zeros_like(v)
        return _psd_from_eigh(M, lam, V, neg).flat[self.lower] * self.scale


def _psd_from_eigh(M: np.ndarray, lam: np.ndarray, V: np.ndarray, neg: int) -> np.ndarray:
    """``sum_i max(lam_i, 0) v_i v_i^T`` from the ascending eigenpairs of ``M`` (``neg`` negative ones).

    Formed from the smaller eigenspace: ``M - sum_{lam_i < 0} lam_i v_i v_i^T`` when at most
    half of the eigenvalues are negative, else ``sum_{lam_i >= 0} lam_i v_i v_i^T``.
    """
    if neg <= lam.size - neg:           # subtract the (smaller) negative part
        Vn = V[:, :neg]
        return M - (Vn * lam[:neg]) @ Vn.T
    Vp = V[:, neg:]
    return (Vp * lam[neg:]) @ Vp.T


def project_psd_dense(Y: np.ndarray, *, dtype: type = np.float64) -> tuple[np.ndarray, float]:
    r"""Projection of a dense symmetric matrix onto the PSD cone, and its smallest eigenvalue.

    Frobenius-nearest PSD matrix :math:`\sum_i \max(\lambda_i, 0) u_i u_i^\top` from one
    divide-and-conquer ``eigh`` (computed in ``dtype``: ``np.float32`` is about twice as
    fast, for iterative solvers at loose tolerance), formed from the smaller eigenspace
    as in :class:`PSDProjector` and symmetrized. Returns ``(X, lambda_min(Y))``; ``X`` is a
    copy of ``Y`` when ``Y`` is already PSD.

    >>> X, lam_min = project_psd_dense(np.diag([1.0, -1.0]))
    >>> X.tolist(), lam_min
    ([[1.0, 0.0], [0.0, 0.0]], -1.0)
    """
    Y = np.asarray(Y, dtype=float)
    if dtype == np.float32:
        lam, V = sla.eigh(Y.astype(np.float32), driver="evd", check_finite=False)
        lam, V = lam.astype(float), V.astype(float)
    else:
        lam, V = sla.eigh(Y, driver="evd", check_finite=False)
    neg = int(np.count_nonzero(lam < 0))
    if neg == 0:
        return Y.copy(), float(lam[0])
    X = _psd_from_eigh(Y, lam, V, neg)
    return 0.5 * (X + X.T), float(lam[0])


def _projector(d: int) -> PSDProjector:
    # a fresh projector per call: its buffer must not be shared between threads
    return PSDProjector(d)


def ritz_block(M: np.ndarray, X: np.ndarray,
               which: Literal["largest", "smallest"]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""One block-Krylov Rayleigh-Ritz step for the extreme eigenpairs of a symmetric ``M``.

    With :math:`Q` an orthonormal basis of :math:`\operatorname{span}[X, MX, M^2X]` and
    :math:`T = Q^\top M Q` (symmetrized), the Ritz pairs :math:`(\theta_i, Q u_i)` of the
    :math:`k = X.shape[1]` largest (or smallest) eigenvalues of :math:`T` approximate those of
    :math:`M`; the residual of a pair is :math:`M y_i - \theta_i y_i`. Used by the partial PSD
    projections of the ``lowrank`` backend (positive side) and the rank-one dual (negative side),
    which accept a pair only when that residual is small and otherwise fall back to ``eigh``.

    Returns ``(theta, Y, MY, Q)``: the ``k`` Ritz values in ascending order, their vectors, ``M @ Y``
    and the basis ``Q`` (for widening the block).

    >>> M = np.diag([3.0, 1.0, -2.0, 0.5])
    >>> theta, Y, MY, Q = ritz_block(M, np.eye(4)[:, :2] + 0.1, "smallest")
    >>> bool(np.isclose(theta[0], -2.0)), bool(np.allclose(MY[:, 0], theta[0] * Y[:, 0]))
    (True, True)
    """
    K1 = M @ X
    K2 = M @ K1
    Q, _ = np.linalg.qr(np.concatenate([X, K1, K2], axis=1))
    MQ = M @ Q
    T = Q.T @ MQ
    theta, U = np.linalg.eigh(0.5 * (T + T.T))
    k = X.shape[1]
    sel = slice(theta.size - k, theta.size) if which == "largest" else slice(0, k)
    U_k = U[:, sel]
    return theta[sel], Q @ U_k, MQ @ U_k, Q


def project_psd_svec(v: np.ndarray, d: int) -> np.ndarray:
    """Projection of the scaled svec ``v`` of a ``d x d`` symmetric matrix onto the PSD cone.

    >>> project_psd_svec(np.array([1.0, 0.0, -1.0]), 2)
    array([1., 0., 0.])
    """
    return _projector(d)(np.asarray(v, dtype=float))


def project_cone(s: np.ndarray, cones: Cones, *, dual: bool = False) -> np.ndarray:
    r"""Euclidean projection onto :math:`\mathcal K` (``dual=True``: onto :math:`\mathcal K^*`).

    Rows in canonical order. The zero cone projects to 0 and its dual is the whole
    space; the other cones are self-dual.

    >>> project_cone(np.array([-1.0, -2.0, 3.0]), Cones(zero=1, nonneg=2))
    array([0., 0., 3.])
    """
    out = np.array(s, dtype=float, copy=True)
    with single_thread_blas():
        for kind, sl, size in cones.blocks():
            if kind == "zero":
                if not dual:
                    out[sl] = 0.0
            elif kind == "nonneg":
                out[sl] = np.maximum(out[sl], 0.0)
            elif kind == "soc":
                out[sl] = project_soc(out[sl])
            else:
                out[sl] = _projector(size)(out[sl])
    return out


def project_dual_cone(y: np.ndarray, cones: Cones) -> np.ndarray:
    r"""Euclidean projection onto the dual cone :math:`\mathcal K^*` (rows in canonical order).

    The zero cone's dual is the whole space; the other cones are self-dual.

    >>> project_dual_cone(np.array([-1.0, -2.0, 3.0]), Cones(zero=1, nonneg=2))
    array([-1.,  0.,  3.])
    """
    return project_cone(y, cones, dual=True)


#: PSD blocks from this order on are first bounded by one Cholesky factorization when :func:`cone_violation` is
#: given a ``budget`` (``N^3/3`` flops against a dense ``eigvalsh``'s ~``4N^3/3``; issue 15's session 29: at order
#: 5,151 the answer check's two ``eigvalsh`` cost ~20-25 s CPU, ``benchmarks/results_support/newton29/``)
CONE_CHECK_CHOLESKY_MIN_ORDER = 1000

#: the first, tight Cholesky bound of a large block asks for this fraction of its share of the budget (a block that
#: is PSD to rounding passes it, and the reported violation stays far below the tolerance); the whole share next
CONE_CHECK_TIGHT = 1e-3

_EPS = float(np.finfo(float).eps)


def _psd_violation_bounded(S: np.ndarray, share: float) -> float | None:
    r"""An upper bound :math:`\le` ``share`` on the norm of the negative eigenvalues of ``S``, or ``None``.

    A successful Cholesky factorization of :math:`S + \delta I` in floating point proves
    :math:`\lambda_{\min}(S) \ge -(\delta + m)`, :math:`m = 4d\varepsilon\|S\|_F` (the backward-error margin of
    :func:`~sosproj.sdp.support_bounds.lambda_min_lower`), so the at most :math:`d` negative eigenvalues have norm
    :math:`\le (\delta + m)\sqrt d`; :math:`\delta` is chosen to make that ``share``. ``None``: not shown (the
    caller computes the exact value)."""
    d = S.shape[0]
    margin = cholesky_margin(S)
    delta = share / np.sqrt(d) - margin
    if not delta > 0 or not shifted_cholesky_succeeds(S, delta):
        return None
    return float((delta + margin) * np.sqrt(d))


def cholesky_margin(S: np.ndarray) -> float:
    r"""The backward-error margin :math:`m = 4d\varepsilon\|S\|_F` of a Cholesky factorization (or a dense
    ``eigvalsh``) of a symmetric matrix of order :math:`d`: a successful factorization of :math:`S + \tau I` shows
    :math:`\lambda_{\min}(S) \ge -(\tau + m)`."""
    return 4.0 * S.shape[0] * _EPS * max(float(np.linalg.norm(S)), 1e-300)


def shifted_cholesky_succeeds(S: np.ndarray, shift: float) -> bool:
    r"""Whether the Cholesky factorization of :math:`S + \text{shift}\,I` succeeds (``S`` is overwritten): the one
    home of the Cholesky tests of :func:`cone_violation` and :class:`~sosproj.sdp.support_bounds.SupportCertifier`.

    >>> shifted_cholesky_succeeds(np.diag([1.0, -0.5]), 0.6), shifted_cholesky_succeeds(np.diag([1.0, -0.5]), 0.4)
    (True, False)
    """
    S[np.diag_indices(S.shape[0])] += shift
    try:
        sla.cholesky(S, lower=True, check_finite=False, overwrite_a=True)
    except np.linalg.LinAlgError:
        return False
    return True


def cone_violation(s: np.ndarray, cones: Cones, *, dual: bool = False, budget: float | None = None) -> float:
    """Distance from ``s`` to the cone (``dual=True``: to the dual cone), Euclidean.

    Computed from eigenvalues only (no projection is formed): for a PSD block the
    distance is the norm of its negative eigenvalues; for a second-order cone
    ``(t, u)`` it is ``(||u|| - t)/sqrt(2)`` when ``|t| < ||u||``.

    ``budget`` (for a pass/fail test "distance <= budget"): PSD blocks of order at least
    :data:`CONE_CHECK_CHOLESKY_MIN_ORDER` are first bounded by one Cholesky factorization each
    (:func:`_psd_violation_bounded`, at :data:`CONE_CHECK_TIGHT` times a share ``budget / (2 sqrt(#blocks))`` per
    block, then at the whole share); where that succeeds the
    block contributes that **upper bound** instead of its exact distance, elsewhere its exact distance.
    So the answer is an upper bound on the distance that is at most ``budget`` whenever the bounds succeed,
    and the test "answer <= budget" decides as the exact distance would whenever the answer exceeds it.

    >>> cone_violation(np.array([0.5, -1.0]), Cones(zero=1, nonneg=1))
    1.118033988749895
    """
    s = np.asarray(s, dtype=float)
    z, l = cones.zero, cones.nonneg
    sq = 0.0 if dual else float(np.sum(s[:z] ** 2))
    sq += float(np.sum(np.minimum(s[z:z + l], 0.0) ** 2))
    for sl in cones.soc_slices():
        t, nu = float(s[sl][0]), float(np.linalg.norm(s[sl][1:]))
        if nu <= t:
            continue
        sq += t * t + nu * nu if nu <= -t else 0.5 * (nu - t) ** 2
    share = None
    if budget is not None and cones.psd:
        share = 0.5 * float(budget) / np.sqrt(len(cones.psd))
    bounded = False
    with single_thread_blas():
        for sl, d in zip(cones.psd_slices(), cones.psd):
            S = smat(s[sl], d)
            if share is not None and d >= CONE_CHECK_CHOLESKY_MIN_ORDER:
                # a tight bound first (PSD to rounding: the usual answer), then the whole share
                bound = _psd_violation_bounded(S.copy(), CONE_CHECK_TIGHT * share)
                if bound is None:
                    bound = _psd_violation_bounded(S.copy(), share)
                if bound is not None:
                    sq += bound * bound
                    bounded = True
                    continue
            lam = np.linalg.eigvalsh(S)
            sq += float(np.sum(np.minimum(lam, 0.0) ** 2))
    if bounded and budget is not None and np.sqrt(sq) > budget:
        # the other parts alone exceed what the bounds left: the exact distance decides
        return cone_violation(s, cones, dual=dual)
    return float(np.sqrt(sq))


def psd_min_eigenvalues(v: np.ndarray, cones: Cones) -> list[float]:
    """Smallest eigenvalue of each PSD block of a row vector ``v``.

    >>> psd_min_eigenvalues(np.array([1.0, 0.0, -1.0]), Cones(psd=(2,)))
    [-1.0]
    """
    return [float(np.linalg.eigvalsh(smat(v[sl], d))[0]) for sl, d in zip(cones.psd_slices(), cones.psd)]


__all__ = ["Cones", "SvecOrder", "SQRT2", "svec", "smat", "svec_dim", "svec_indices", "svec_operator",
           "svec_permutation", "project_soc", "PSDProjector", "project_psd_svec", "project_psd_dense", "project_cone",
           "project_dual_cone", "cone_violation", "psd_min_eigenvalues", "single_thread_blas",
           "CONE_CHECK_CHOLESKY_MIN_ORDER", "CONE_CHECK_TIGHT", "cholesky_margin", "shifted_cholesky_succeeds"]

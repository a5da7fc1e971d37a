r"""A solver-neutral conic program and the scaled ``svec`` conventions.

Every SDP that sosproj solves is first compiled into one :class:`ConicProblem`

.. math::

    \min_x \ \tfrac12 x^\top P x + q^\top x + c_0
    \quad\text{s.t.}\quad A x + s = b,\ \ s \in \mathcal K,

with sparse ``P`` (symmetric positive semidefinite), sparse ``A`` and the cone
:math:`\mathcal K = \{0\}^{z} \times \mathbb R_+^{l} \times \mathrm{SOC}_{q_1}
\times\cdots\times \mathcal S_+^{d_1}\times\cdots` stored **in that row order**
(:class:`Cones`). The dual is

.. math::

    \max_{x, y}\ -\tfrac12 x^\top P x - b^\top y + c_0
    \quad\text{s.t.}\quad P x + A^\top y + q = 0,\ \ y \in \mathcal K^*.

A PSD block of order ``d`` occupies ``d(d+1)/2`` rows holding the **scaled
svec** of a symmetric matrix: diagonal entries as is, off-diagonal entries
multiplied by :math:`\sqrt 2`, so that :math:`\langle \mathrm{svec}(X),
\mathrm{svec}(Y)\rangle = \langle X, Y\rangle_F`. The canonical order inside
a :class:`ConicProblem` is SCS's: the **lower triangle stacked column by
column** ``(0,0), (1,0), ..., (d-1,0), (1,1), (2,1), ...``. Clarabel wants the
**upper triangle column by column** ``(0,0), (0,1), (1,1), (0,2), ...``; its
backend permutes the rows with :func:`svec_permutation` (tested against
both solvers in ``tests/test_sdp_conic.py``).

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from sosproj.errors import InvalidInputError, InvalidParameterError

SvecOrder = Literal["scs", "clarabel"]

SQRT2 = float(np.sqrt(2.0))


# ------------------------------------------------------------------ svec helpers


@lru_cache(maxsize=64)
def svec_indices(d: int, order: SvecOrder = "scs") -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices ``(i, j)`` of the svec entries of a ``d x d`` matrix.

    ``order="scs"``: lower triangle (``i >= j``) column-major; ``order="clarabel"``:
    upper triangle (``i <= j``) column-major.

    >>> svec_indices(3, "scs")[0].tolist(), svec_indices(3, "scs")[1].tolist()
    ([0, 1, 2, 1, 2, 2], [0, 0, 0, 1, 1, 2])
    >>> svec_indices(3, "clarabel")[0].tolist(), svec_indices(3, "clarabel")[1].tolist()
    ([0, 0, 1, 0, 1, 2], [0, 1, 1, 2, 2, 2])
    """
    if order == "scs":
        cols, rows = [], []
        for j in range(d):
            rows.extend(range(j, d))
            cols.extend([j] * (d - j))
    elif order == "clarabel":
        cols, rows = [], []
        for j in range(d):
            rows.extend(range(0, j + 1))
            cols.extend([j] * (j + 1))
    else:
        raise InvalidParameterError("order must be 'scs' or 'clarabel'")
    i = np.asarray(rows, dtype=np.int64)
    j = np.asarray(cols, dtype=np.int64)
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

    def as_dict(self) -> dict[str, Any]:
        """Plain dictionary (JSON friendly)."""
        return {"zero": self.zero, "nonneg": self.nonneg, "soc": list(self.soc), "psd": list(self.psd)}


def project_dual_cone(y: np.ndarray, cones: Cones) -> np.ndarray:
    r"""Euclidean projection onto the dual cone :math:`\mathcal K^*` (rows in canonical order).

    The zero cone's dual is the whole space; the other cones are self-dual.

    >>> project_dual_cone(np.array([-1.0, -2.0, 3.0]), Cones(zero=1, nonneg=2))
    array([-1.,  0.,  3.])
    """
    out = np.array(y, dtype=float, copy=True)
    z, l = cones.zero, cones.nonneg
    out[z:z + l] = np.maximum(out[z:z + l], 0.0)
    for sl in cones.soc_slices():
        out[sl] = _project_soc(out[sl])
    with _single_thread_blas():
        for sl, d in zip(cones.psd_slices(), cones.psd):
            out[sl] = _project_psd_svec(out[sl], d)
    return out


def cone_violation(s: np.ndarray, cones: Cones, *, dual: bool = False) -> float:
    """Distance from ``s`` to the cone (``dual=True``: to the dual cone), Euclidean.

    Computed from eigenvalues only (no projection is formed): for a PSD block the
    distance is the norm of its negative eigenvalues; for a second-order cone
    ``(t, u)`` it is ``(||u|| - t)/sqrt(2)`` when ``|t| < ||u||``.

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
    with _single_thread_blas():
        for sl, d in zip(cones.psd_slices(), cones.psd):
            lam = np.linalg.eigvalsh(smat(s[sl], d))
            sq += float(np.sum(np.minimum(lam, 0.0) ** 2))
    return float(np.sqrt(sq))


def _single_thread_blas() -> Any:
    """The BLAS thread policy of :mod:`sosproj.threads` (one thread unless the user overrides it).

    On an oversubscribed machine a multi-threaded ``eigh`` of order 200-500 was
    measured 40x slower than single-threaded; the checks here are small dense
    problems that gain nothing from threads.
    """
    from sosproj.threads import blas_threads

    return blas_threads()


def _project_soc(v: np.ndarray) -> np.ndarray:
    t, u = v[0], v[1:]
    nu = float(np.linalg.norm(u))
    if nu <= t:
        return v
    if nu <= -t:
        return np.zeros_like(v)
    a = 0.5 * (t + nu)
    return np.concatenate([[a], a * u / nu])


def _project_psd_svec(v: np.ndarray, d: int) -> np.ndarray:
    X = smat(v, d)
    w, U = np.linalg.eigh(X)
    w = np.maximum(w, 0.0)
    return svec((U * w) @ U.T)


def psd_min_eigenvalues(v: np.ndarray, cones: Cones) -> list[float]:
    """Smallest eigenvalue of each PSD block of a row vector ``v``.

    >>> psd_min_eigenvalues(np.array([1.0, 0.0, -1.0]), Cones(psd=(2,)))
    [-1.0]
    """
    return [float(np.linalg.eigvalsh(smat(v[sl], d))[0]) for sl, d in zip(cones.psd_slices(), cones.psd)]


# ---------------------------------------------------------------------- problem


@dataclass(frozen=True, eq=False)
class ConicProblem:
    r"""``min 1/2 x'Px + q'x + offset  s.t.  A x + s = b, s in cones`` (see module docs).

    Parameters
    ----------
    P : sparse symmetric PSD ``(n, n)`` or ``None`` (linear objective).
    q : ``(n,)`` linear cost.
    A : sparse ``(m, n)`` constraint matrix; rows follow ``cones``.
    b : ``(m,)`` right-hand side.
    cones : :class:`Cones` with ``cones.dim == m``.
    offset : constant added to the objective (e.g. :math:`\|Y\|_F^2` for projections).
    P_factor : optional sparse ``F`` with ``P = F^T F`` (lets the cvxpy reference use a
        sum of squares instead of a quadratic form).
    meta : free-form, data-independent description (names, sizes).

    >>> import numpy as np, scipy.sparse as sp
    >>> # min x  s.t.  x >= 1   written as  -x + s = -1, s >= 0
    >>> prob = ConicProblem(None, np.array([1.0]), sp.csc_matrix([[-1.0]]), np.array([-1.0]),
    ...                     Cones(nonneg=1))
    >>> prob.n, prob.m
    (1, 1)
    """

    P: sp.csc_matrix | None
    q: np.ndarray
    A: sp.csc_matrix
    b: np.ndarray
    cones: Cones
    offset: float = 0.0
    P_factor: sp.csr_matrix | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        q = np.asarray(self.q, dtype=float).ravel()
        b = np.asarray(self.b, dtype=float).ravel()
        if not sp.issparse(self.A):
            raise InvalidInputError("A must be a scipy.sparse matrix; wrap it with scipy.sparse.csc_matrix")
        A = sp.csc_matrix(self.A, dtype=float)
        m, n = A.shape
        if q.shape != (n,):
            raise InvalidInputError(f"q must have length {n} (columns of A); got {q.shape}")
        if b.shape != (m,):
            raise InvalidInputError(f"b must have length {m} (rows of A); got {b.shape}")
        if self.cones.dim != m:
            raise InvalidInputError(f"cones cover {self.cones.dim} rows but A has {m}; fix the cone sizes")
        P = self.P
        if P is not None:
            if not sp.issparse(P):
                raise InvalidInputError("P must be a scipy.sparse matrix or None")
            P = sp.csc_matrix(P, dtype=float)
            if P.shape != (n, n):
                raise InvalidInputError(f"P must have shape ({n}, {n}); got {P.shape}")
            if P.nnz == 0:
                P = None
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(b)) and np.all(np.isfinite(A.data))):
            raise InvalidInputError("q, b and A must be finite")
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "offset", float(self.offset))

    @property
    def n(self) -> int:
        """Number of variables."""
        return self.A.shape[1]

    @property
    def m(self) -> int:
        """Number of constraint rows."""
        return self.A.shape[0]

    def with_data(self, *, q: np.ndarray | None = None, b: np.ndarray | None = None,
                  offset: float | None = None) -> ConicProblem:
        """A copy with a new ``q``, ``b`` or ``offset`` (same sparse data, not copied)."""
        return ConicProblem(self.P, self.q if q is None else q, self.A, self.b if b is None else b,
                            self.cones, self.offset if offset is None else offset, self.P_factor,
                            dict(self.meta))

    def objective(self, x: np.ndarray) -> float:
        """Primal objective ``1/2 x'Px + q'x + offset``."""
        val = float(self.q @ x) + self.offset
        if self.P is not None:
            val += 0.5 * float(x @ (self.P @ x))
        return val

    def residuals(self, x: np.ndarray, y: np.ndarray, s: np.ndarray) -> dict[str, float]:
        r"""Relative primal / dual residuals and duality gap (SCS's definitions, infinity norms).

        ``primal = ||Ax + s - b|| / (1 + max(||Ax||, ||s||, ||b||))``,
        ``dual = ||Px + A'y + q|| / (1 + max(||Px||, ||A'y||, ||q||))``,
        ``gap = |x'Px + q'x + b'y| / (1 + max(|x'Px|, |q'x|, |b'y|))``; plus the
        Euclidean cone violations of ``s`` (primal) and ``y`` (dual).
        """
        Ax = self.A @ x
        Aty = self.A.T @ y
        Px = self.P @ x if self.P is not None else np.zeros(self.n)
        inf = np.inf

        def nrm(v: np.ndarray) -> float:
            return float(np.linalg.norm(v, inf)) if v.size else 0.0

        pres = nrm(Ax + s - self.b) / (1.0 + max(nrm(Ax), nrm(s), nrm(self.b)))
        dres = nrm(Px + Aty + self.q) / (1.0 + max(nrm(Px), nrm(Aty), nrm(self.q)))
        xPx = float(x @ Px)
        qx = float(self.q @ x)
        by = float(self.b @ y)
        gap = abs(xPx + qx + by) / (1.0 + max(abs(xPx), abs(qx), abs(by)))
        return {"primal": pres, "dual": dres, "gap": gap,
                "cone_primal": cone_violation(s, self.cones),
                "cone_dual": cone_violation(y, self.cones, dual=True)}

    def lower_bound(self, x: np.ndarray, y: np.ndarray, x_bound: float) -> dict[str, float]:
        r"""A lower bound on the optimal value from any point ``x`` and any dual vector ``y``.

        With :math:`y_+ = \Pi_{\mathcal K^*}(y)` and :math:`r = Px + q + A^\top y_+`,
        convexity gives, for every feasible :math:`x'` (:math:`Ax' + s' = b`,
        :math:`s'\in\mathcal K`, so :math:`y_+^\top s' \ge 0`):

        .. math::

            f(x') \ge f(x) + (Px+q)^\top(x'-x)
                 \ge f(x) - y_+^\top(b - Ax) - \|r\|_2\,(\|x'\|_2 + \|x\|_2),

        and ``x_bound`` must bound :math:`\|x'\|_2` over the feasible set. The bound
        is exact at a primal-dual optimal pair (then ``r = 0`` and complementarity
        makes the middle term vanish).

        >>> import numpy as np, scipy.sparse as sp
        >>> prob = ConicProblem(sp.csc_matrix([[2.0]]), np.array([0.0]), sp.csc_matrix([[-1.0]]),
        ...                     np.array([-1.0]), Cones(nonneg=1))      # min x^2 s.t. x >= 1
        >>> lb = prob.lower_bound(np.array([1.0]), np.array([2.0]), x_bound=10.0)
        >>> round(lb["lower_bound"], 12), round(prob.objective(np.array([1.0])), 12)
        (1.0, 1.0)
        """
        yp = project_dual_cone(y, self.cones)
        r = self.q + self.A.T @ yp
        if self.P is not None:
            r = r + self.P @ x
        fx = self.objective(x)
        comp = float(yp @ (self.b - self.A @ x))
        rn = float(np.linalg.norm(r))
        slack = rn * (float(x_bound) + float(np.linalg.norm(x)))
        lb = fx - comp - slack
        return {"lower_bound": lb, "objective": fx, "gap": fx - lb,
                "complementarity": comp, "dual_residual_norm": rn, "x_bound": float(x_bound)}

    def describe(self) -> dict[str, Any]:
        """Sizes (no data values): variables, rows, nonzeros, cones."""
        return {"n": self.n, "m": self.m, "nnz_A": int(self.A.nnz),
                "nnz_P": int(self.P.nnz) if self.P is not None else 0,
                "cones": self.cones.as_dict(), **self.meta}


def estimate_memory(n: int, cones: Cones, nnz_A: int, nnz_P: int, solver: str) -> int:
    """Estimated peak bytes of a solver's workspace (KKT system and factor), before building.

    * ``scs`` (direct): sparse LDL factor of the quasi-definite KKT matrix
      ``[[P + rho I, A^T], [A, -D]]``: ``nnz(P) + nnz(A) + n + m`` entries, a
      fill factor of 4 and 12 bytes per entry (value + index), plus a dense
      eigendecomposition workspace of ``3 d^2`` doubles for the largest PSD block
      and the iterate vectors.
    * ``clarabel``: the Nesterov-Todd scaling of a PSD block of order ``d`` makes
      a **dense** ``svec_dim(d)^2`` block of the KKT matrix; its LDL factor is
      dense too (16 bytes per entry for matrix plus factor), plus the sparse part.
    * ``cvxpy``: the canonicalized copy (about 5x the sparse data) plus the
      chosen solver's workspace (SCS's estimate).
    * ``admm``: ``A`` and ``A'``, ten pairs of Anderson vectors, a dense
      eigendecomposition workspace of the largest block and the dense Woodbury
      matrix of the rows that couple several variables; ``auto``: the larger of
      ``admm`` and ``scs`` (it may fall back to SCS).
    * ``mosek``: the Schur complement ``m_eq x m_eq`` dense matrix over the
      variables (``n^2`` doubles) plus the sparse data.

    >>> estimate_memory(10, Cones(zero=1, psd=(4,)), 20, 0, "scs") > 0
    True
    """
    m = cones.dim
    dmax = max(cones.psd, default=0)
    sparse_kkt = nnz_A + nnz_P + n + m
    vectors = 8 * 10 * (n + m)
    scs_bytes = 12 * 4 * sparse_kkt + 8 * 3 * dmax * dmax + vectors
    if solver == "scs":
        return int(scs_bytes)
    if solver == "clarabel":
        dense = sum(svec_dim(d) ** 2 for d in cones.psd)
        return int(16 * dense + 12 * 4 * sparse_kkt + vectors)
    if solver == "cvxpy":
        return int(scs_bytes + 5 * 12 * (nnz_A + nnz_P))
    if solver == "mosek":
        return int(8 * n * n + 12 * 4 * sparse_kkt + vectors)
    if solver in ("admm", "auto"):
        from sosproj.sdp.backends.admm import MAX_COUPLED_ROWS

        # A and A' (CSR), the Anderson history (2 x 10 vectors of length m), the iterates, one
        # dense eigendecomposition per block, and the dense Woodbury matrix of the coupled rows
        # (taken as the rows of every block but the largest). Beyond MAX_COUPLED_ROWS the ADMM
        # refuses the problem before allocating that matrix, and "auto" runs SCS.
        coupled = sum(svec_dim(d) for d in cones.psd if d < dmax) + cones.nonneg + sum(cones.soc)
        admm_bytes = int(2 * 12 * (nnz_A + nnz_P) + 8 * (20 * m + 12 * (n + m)) + 8 * 4 * dmax * dmax
                         + 8 * min(coupled, MAX_COUPLED_ROWS) ** 2)
        if solver == "admm":
            return admm_bytes
        return int(scs_bytes) if coupled > MAX_COUPLED_ROWS else max(admm_bytes, int(scs_bytes))
    raise InvalidParameterError("solver must be 'scs', 'clarabel', 'mosek', 'cvxpy', 'admm' or 'auto'")


__all__ = ["ConicProblem", "Cones", "svec", "smat", "svec_dim", "svec_indices", "svec_operator",
           "svec_permutation", "project_dual_cone", "cone_violation", "psd_min_eigenvalues",
           "estimate_memory", "SvecOrder"]

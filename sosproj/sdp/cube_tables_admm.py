r"""Weighted least squares over the degree-``d`` Boolean-cube SoS relaxation, in Fourier moments.

In the +-1 Fourier basis ``f_U = E[prod_{i in U} (1 - 2 x_i)]`` the cell least
squares of measured contingency tables is *diagonal*,
``sum_U a_U (f_U - g_U)^2`` (:func:`sosproj.data.contingency.fourier_form`), and
the moment matrix of the cube ``z_i^2 = 1`` is ``M(f)[A, B] = f_{A xor B}`` for
subsets ``|A|, |B| <= d/2``.  :class:`CubeTablesProjector` solves

.. math::  \min_f \sum_U a_U (f_U - g_U)^2 \quad\text{s.t.}\quad M(f) \succeq 0,\ f_{()} = 1

by ADMM on the splitting ``X = M(f)``: a closed-form diagonal update for ``f``
and one PSD projection (:func:`sosproj.sdp.cones.project_psd_dense`) per
iteration.  It is the projection step of
:func:`sosproj.mechanisms.marginal_tables.release_tables`; the tests compare it
with an independent cvxpy formulation in the 0/1 subset basis
(:func:`sosproj.mechanisms.marginal_tables.tables_least_squares_reference`).

Options (keywords of :class:`CubeTablesProjector`, unknown ones refused by
:func:`sosproj.policy.check_options`): ``tol``, ``max_iter``, ``rho``,
``alpha``, ``eig_precision``, ``basis``, ``gap_tol`` (a certified-distance stop,
:mod:`sosproj.sdp.cube_gap`), ``init`` (the unmeasured moments' starting values,
:mod:`sosproj.sdp.cube_init`).  ``on_fail`` of :meth:`CubeTablesProjector.solve`
follows :mod:`sosproj.policy`.

Examples
--------
>>> import numpy as np
>>> from sosproj.data.contingency import TableLayout, SubsetIndex, contingency_tables, fourier_form
>>> D = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
>>> lay = TableLayout.all_k_way(3, 2)
>>> ff = fourier_form(contingency_tables(D, lay, flat=True) / 4, lay, SubsetIndex(3, 2))
>>> proj = CubeTablesProjector(3, degree=2, weights=ff.a)
>>> f, info = proj.solve(ff.g)
>>> bool(info["converged"]) and bool(np.allclose(f[:7], ff.g, atol=1e-5))
True
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.linalg as sla

from sosproj.data.contingency import SubsetIndex
from sosproj.errors import InvalidParameterError
from sosproj.policy import apply_on_fail, check_on_fail, check_options
from sosproj.sdp.backends.side_spectrum import STEIN_CLUSTER_LIMIT, side_eigh, side_gram
from sosproj.sdp.cones import project_psd_dense
from sosproj.sdp.cube_gap import best_certificate, certified_distance, measured_count
from sosproj.sdp.cube_init import cumulant_completion
from sosproj.validation import check_choice, check_int, check_memory, check_positive

#: keyword options accepted by :class:`CubeTablesProjector`
OPTIONS = ("tol", "max_iter", "rho", "alpha", "eig_precision", "basis", "gap_tol", "init", "anderson")

#: starting values of the unmeasured moments (``init``): ``"zero"`` or ``"cumulant"`` (:mod:`sosproj.sdp.cube_init`)
INITS = ("zero", "cumulant")

#: iterations between two duality-gap checks (``gap_tol``): each costs one smallest eigenvalue and one adjoint
GAP_CHECK_EVERY = 20
#: the certified check runs only when the same formula at the unmixed iterate is within this factor of the threshold
GAP_SKIP_FACTOR = 3.0
#: Anderson acceleration (``anderson=m``): a step is kept only if the next fixed-point residual is at most this
#: factor times the residual where the step was taken; otherwise it is replaced by the plain ADMM step.
#: 2.0 measured against 1.0 on the captured nltcs cube problems (benchmarks/results_peers/runtime_v12/):
#: 1.0 rejected 3-21 steps per solve at epsilon 3 and 10 and lost to the plain ADMM at 10; 2.0 rejected none
ANDERSON_SAFEGUARD = 2.0
#: Tikhonov regularization of the Anderson least squares, relative to the trace of its Gram matrix
ANDERSON_REG = 1e-10
#: alternating-projection rounds that tighten the certificate (:func:`~sosproj.sdp.cube_gap.polish_dual`) at a
#: gap check; each costs one eigendecomposition
GAP_POLISH_ROUNDS = 5
#: the certificate is polished only when the multiplier's own bound is within this factor of the threshold
GAP_POLISH_FACTOR = 2.0


def _symmetric_difference_positions(index: SubsetIndex, basis_size: int, t: int,
                                    chunk: int = 256, rows: np.ndarray | None = None) -> np.ndarray:
    """(N, N) int array: position in ``index`` of ``A xor B`` for basis subsets A, B (the first
    ``basis_size`` subsets of ``index``, or those at the positions ``rows``)."""
    members = index.members[:basis_size, :t] if rows is None else index.members[rows, :t]
    basis_size = members.shape[0]
    width = index.max_size
    big = index.n + 1
    out = np.empty((basis_size, basis_size), dtype=np.int64)
    mb = np.where(members < 0, big, members)
    for lo in range(0, basis_size, chunk):
        a = mb[lo:lo + chunk]
        pair = np.concatenate([np.broadcast_to(a[:, None, :], (a.shape[0], basis_size, t)),
                               np.broadcast_to(mb[None, :, :], (a.shape[0], basis_size, t))], axis=2)
        pair = np.sort(pair, axis=2)
        dup = np.zeros(pair.shape, dtype=bool)
        eq = (pair[..., 1:] == pair[..., :-1]) & (pair[..., 1:] < big)
        dup[..., 1:] |= eq
        dup[..., :-1] |= eq
        pair = np.where(dup, big, pair)
        pair = np.sort(pair, axis=2)
        pair = np.where(pair >= big, -1, pair)
        flat = np.full((pair.shape[0] * basis_size, width), -1, dtype=np.int64)
        cols = min(2 * t, width)            # a symmetric difference has at most min(2t, n) elements
        flat[:, :cols] = pair.reshape(-1, 2 * t)[:, :cols]
        out[lo:lo + chunk] = index.lookup(flat).reshape(a.shape[0], basis_size)
    return out


def _project_psd_side(Y: np.ndarray, stein_limit: float | None = None,
                      info: dict[str, Any] | None = None) -> np.ndarray:
    r"""Frobenius projection of the symmetric float64 ``Y`` onto the PSD cone from ONE side of its spectrum.

    The same matrix as :func:`~sosproj.sdp.cones.project_psd_dense` (to rounding): LAPACK's tridiagonal
    reduction and divide and conquer, with the back-transformation of the smaller side of the spectrum
    only (:func:`~sosproj.sdp.backends.side_spectrum.side_eigh`), then
    :math:`\sum_{\lambda_i > 0} \lambda_i v_i v_i^\top` or :math:`Y - \sum_{\lambda_i < 0} \lambda_i v_i v_i^\top`
    as one ``syrk`` (:func:`~sosproj.sdp.backends.side_spectrum.side_gram`), mirrored to a full symmetric
    matrix. ``Y`` is read, never written (only its upper triangle is used). ``stein_limit`` and ``info`` go to
    :func:`~sosproj.sdp.backends.side_spectrum.side_eigh` (the side's eigenvectors by inverse iteration when
    its eigenvalue clusters are small: the same eigenpairs to rounding, cheaper).

    >>> X = _project_psd_side(np.array([[1.0, 2.0], [2.0, 1.0]]))    # eigenvalues 3, -1
    >>> X.round(12).tolist()
    [[1.5, 1.5], [1.5, 1.5]]
    """
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    if Y.shape[0] < 2:                               # LAPACK's tridiagonal reduction needs order >= 2
        return np.maximum(Y, 0.0)
    lam, V, positive, n_neg = side_eigh(Y, stein_limit=stein_limit, info=info)
    if n_neg == 0:
        return Y.copy()
    if positive:
        low = side_gram(V, lam)                      # lower triangle of sum_{lam > 0} lam v v^T
    else:
        low = side_gram(V, lam, Y.copy())            # Y - sum_{lam < 0} lam v v^T (lower triangle)
    return _mirror_lower(low)


#: strict-lower 0/1 masks by order (:func:`_mirror_lower`)
_STRICT_LOWER: dict[int, np.ndarray] = {}


def _mirror_lower(low: np.ndarray) -> np.ndarray:
    """The symmetric matrix whose lower triangle (diagonal included) is that of ``low`` (the upper is ignored).

    Bit-identical to ``np.tril(low) + np.tril(low, -1).T`` (multiplying by an exact 0/1 mask and adding zeros
    round nothing; zeros come out positive
    as there), about 3x cheaper at order 137: the mask is built once per order, not per call.

    >>> _mirror_lower(np.array([[1.0, 9.0], [2.0, 3.0]])).tolist()
    [[1.0, 2.0], [2.0, 3.0]]
    """
    n = low.shape[0]
    mask = _STRICT_LOWER.get(n)
    if mask is None:
        mask = np.tril(np.ones((n, n)), -1)
        if n <= 512:                                     # cached up to 2 MB a mask
            _STRICT_LOWER[n] = mask
    strict = low * mask
    X = strict + strict.T
    d = np.arange(n)
    X[d, d] = low[d, d]
    X += 0.0                                             # -0.0 -> +0.0, as the tril sum gives
    return X


class CubeTablesProjector:
    r"""Weighted least squares over the degree-``d`` Boolean-cube relaxation, in Fourier moments.

    Solves ``min_f sum_U a_U (f_U - g_U)^2`` subject to ``M(f) PSD`` and
    ``f_{()} = 1``, where ``f`` is indexed by all subsets of size ``<= d``
    (:class:`~sosproj.data.contingency.SubsetIndex` order), ``M(f)[A, B] =
    f_{A xor B}`` for ``|A|, |B| <= d/2`` (the moment matrix of the +-1 cube
    ``z_i^2 = 1``, congruent to the 0/1 cube's), and ``a`` is zero beyond the
    measured subsets.  Compiled once per ``(n, degree, weights)``; :meth:`solve`
    is called once per noisy measurement ``g``.

    ADMM (scaled form) on the splitting ``X = M(f)``::

        f   <- argmin sum a (f - g)^2 + rho/2 ||M(f) - X + L||^2  (diagonal, closed form)
        X   <- Pi_PSD(M(f) + L)                                     (one eigendecomposition)
        L   <- L + M(f) - X

    with residual balancing of ``rho``.  Stops when the primal residual
    ``||M(f) - X||_F`` and dual residual ``rho ||M^*(X - X_prev)||`` are below
    ``tol`` relative to the iterates.  The returned ``f`` is made exactly
    feasible by mixing with the uniform distribution (``M = I``):
    ``f <- (1 - theta) f + theta e_()``, ``theta = -lambda_min / (1 - lambda_min)``
    (reported as ``info["theta"]``).

    ``anderson`` (default 0: off): memory ``m`` of safeguarded type-II Anderson acceleration of the ADMM
    fixed-point map (below). The relaxed ADMM is Douglas-Rachford splitting on ``v = X + L``:
    ``X = Pi_PSD(v)``, ``L = v - X`` (complementary: ``L`` is minus the negative part of ``v``), and one
    iteration is ``v <- T(v) = v + alpha (M(f(v)) - X)`` with ``f(v)`` the diagonal update. With ``m > 0``
    the next ``v`` is the Anderson extrapolation ``T(v_k) - sum_j gamma_j (T(v_{j+1}) - T(v_j))``, ``gamma``
    the (Tikhonov-regularized, :data:`ANDERSON_REG`) least-squares fit of the residual ``g_k = T(v_k) - v_k``
    by the last ``m`` residual differences (Walker and Ni, SIAM J. Numer. Anal. 49, 2011; Zhang,
    O'Donoghue and Boyd, SIAM J. Optim. 30, 2020; Fu, Zhang and Boyd, "Anderson accelerated
    Douglas-Rachford splitting", SIAM J. Sci. Comput. 42, 2020). Safeguard: an extrapolated ``v`` whose
    own residual exceeds :data:`ANDERSON_SAFEGUARD` times the residual where it was taken is rejected, the
    plain step ``T(v_k)`` taken instead and the memory cleared (``info["anderson_rejected"]``); a change of
    ``rho`` clears it too (``v`` changes scale). The fixed points, the stopping tests and the certificate
    are those of the plain ADMM (every ``L = v - Pi_PSD(v)`` is negative semidefinite, so ``-rho L`` stays a
    valid multiplier for :mod:`sosproj.sdp.cube_gap`); the memory costs ``2 m`` order-``N`` matrices.

    Options (keywords; others are refused by :func:`sosproj.policy.check_options`):
    ``tol`` (default ``1e-7``), ``max_iter`` (20000), ``rho`` (initial penalty; default
    the median of ``a_U / cnt_U`` over measured ``U``), ``alpha`` (over-relaxation in
    ``(0, 2)``, 1.6), ``eig_precision`` (``"auto"``, ``"double"`` or ``"single"``),
    ``basis`` (positions in :class:`~sosproj.data.contingency.SubsetIndex` order of the subsets
    indexing the moment matrix, a subset of those of size ``<= d/2`` containing the empty set;
    default all of them). A smaller basis gives a principal submatrix of ``M(f)``: a weaker,
    cheaper relaxation (order ``len(basis)``); every measured moment (``a_U > 0``) must still be
    an entry of it. Moments in neither are set to 0 (they enter nothing).
    ``gap_tol`` (default ``None``: off): also stop, every :data:`GAP_CHECK_EVERY` iterations, when the
    duality gap certifies ``||f - f*||_a <= gap_tol * sqrt(#{U != (): a_U > 0})`` for the exact projection
    ``f*`` and the returned (feasible) ``f`` (:mod:`sosproj.sdp.cube_gap`); meaningful as a fraction
    of the noise when ``a`` is the measurement's inverse variance. ``info["stop"]`` says which test
    ended the run (``"residuals"``, ``"gap"`` or ``"max_iter"``); ``info["certified_distance"]`` is,
    whatever the options, the certified bound on ``||f - f*||_a`` of the returned ``f``
    (:func:`~sosproj.sdp.cube_gap.certified_distance` with ADMM's multiplier): how far an answer
    stopped by ``tol`` or at ``max_iter`` can be from the exact projection; after a gap stop it is the
    smallest bound over the multiplier and up to :data:`GAP_POLISH_ROUNDS` alternating projections of it
    (:func:`~sosproj.sdp.cube_gap.best_certificate`), otherwise the multiplier's own.
    ``init`` (default ``"zero"``): the unmeasured moments' starting values; ``"cumulant"`` starts them at the
    cumulant closure of the measured ones (:func:`~sosproj.sdp.cube_init.cumulant_completion`), which
    shortens the first phase of the run; the problem and its answer (to ``tol``) are the same.

    >>> proj = CubeTablesProjector(2, degree=2, weights=np.array([0., 1., 1., 1.]))
    >>> f, info = proj.solve(np.array([1., 0., 0., 2.]))   # f_{01} = 2 is infeasible (|f| <= 1)
    >>> round(float(f[3]), 4), info["converged"]
    (1.0, True)
    """

    def __init__(self, n: int, degree: int, weights: np.ndarray, **options: Any) -> None:
        check_options(options, OPTIONS, "CubeTablesProjector")
        tol = options.get("tol", 1e-7)
        max_iter = options.get("max_iter", 20000)
        rho = options.get("rho")
        alpha = options.get("alpha", 1.6)
        eig_precision = options.get("eig_precision", "auto")
        self.n = check_int(n, "n", minimum=1)
        self.degree = check_int(degree, "degree", minimum=2)
        if self.degree % 2:
            raise InvalidParameterError("degree must be even (the moment matrix has order sum C(n, j), j <= degree/2)")
        self.t = min(self.degree // 2, self.n)
        top = min(self.degree, self.n)
        full = sum(math.comb(self.n, j) for j in range(self.t + 1))
        rows = options.get("basis")
        if rows is not None:
            rows = np.asarray(rows)
            if (rows.ndim != 1 or rows.size == 0 or rows.dtype.kind not in "iu" or rows.min() < 0
                    or rows.max() >= full or np.unique(rows).size != rows.size or 0 not in rows):
                raise InvalidParameterError(
                    f"basis must be distinct positions in 0..{full - 1} (subsets of size <= degree/2) "
                    "including 0 (the empty set); pass None for the full moment matrix")
        basis = full if rows is None else int(rows.size)
        n_mom = sum(math.comb(self.n, j) for j in range(top + 1))
        self.anderson = check_int(options.get("anderson", 0), "anderson", minimum=0)
        check_memory(8.0 * ((10 + 2 * self.anderson) * basis * basis + 6 * n_mom),
                     f"the degree-{self.degree} cube relaxation (moment matrix order {basis})")
        self.index = SubsetIndex(self.n, top)
        self.basis_size = basis
        w = np.zeros(len(self.index))
        weights = np.asarray(weights, dtype=float).ravel()
        if weights.size > w.size or not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise InvalidParameterError("weights must be finite, non-negative, at most one per moment")
        w[:weights.size] = weights
        self.a = w
        self.pos = _symmetric_difference_positions(self.index, basis, self.t, rows=rows)
        self._pos_flat = self.pos.ravel()
        self.count = np.bincount(self._pos_flat, minlength=len(self.index)).astype(float)
        if rows is not None:
            if np.any((self.count == 0) & (w > 0)):
                raise InvalidParameterError("basis: every measured moment (weight > 0) must be an entry of "
                                            "the moment matrix; add the subsets that pair to it")
            self.count[self.count == 0] = 1.0          # in neither the matrix nor the objective: f = 0
        self.tol = check_positive(tol, "tol")
        self.max_iter = check_int(max_iter, "max_iter", minimum=1)
        if rho is None:
            meas = self.a > 0
            rho = float(np.median(self.a[meas] / self.count[meas])) if np.any(meas) else 1.0
        self.rho0 = check_positive(rho, "rho")
        self.alpha = check_positive(alpha, "alpha")
        check_choice(eig_precision, "eig_precision", ("auto", "double", "single"))
        self.eig_precision = eig_precision
        if not 0 < self.alpha < 2:
            raise InvalidParameterError("alpha (over-relaxation) must lie in (0, 2); 1.6 is a good default")
        gap_tol = options.get("gap_tol")
        self.gap_tol = None if gap_tol is None else check_positive(gap_tol, "gap_tol")
        self.init = options.get("init", "zero")
        check_choice(self.init, "init", INITS)
        self._warm: tuple[np.ndarray, float] | None = None
        self._stein_next = True

    @property
    def eig_dtype(self) -> type:
        """float32 eigendecompositions (about 2x faster) when ``tol >= 1e-5`` and the order is large."""
        if self.eig_precision == "single" or (self.eig_precision == "auto" and self.tol >= 1e-5
                                               and self.basis_size >= 400):
            return np.float32
        return np.float64

    @property
    def n_moments(self) -> int:
        """Number of Fourier moments (subsets of size ``<= degree``)."""
        return len(self.index)

    def moment_matrix(self, f: np.ndarray) -> np.ndarray:
        """``M(f)[A, B] = f_{A xor B}``."""
        return np.asarray(f)[self.pos]

    def adjoint(self, X: np.ndarray) -> np.ndarray:
        """``M^*(X)_U = sum of X over the positions of U``."""
        return np.bincount(self._pos_flat, weights=np.asarray(X).ravel(), minlength=self.n_moments)

    def _psd(self, Y: np.ndarray) -> np.ndarray:
        """PSD projection of an iterate: :func:`_project_psd_side` in double precision, else
        :func:`~sosproj.sdp.cones.project_psd_dense` in :attr:`eig_dtype`."""
        if self.eig_dtype == np.float64:
            # inverse iteration for the side's eigenvectors while the last decomposition's clusters were small
            info: dict[str, Any] = {}
            X = _project_psd_side(Y, STEIN_CLUSTER_LIMIT if self._stein_next else None, info)
            self._stein_next = info.get("cluster_share", 1.0) <= STEIN_CLUSTER_LIMIT
            return X
        return project_psd_dense(Y, dtype=self.eig_dtype)[0]

    def _feasible(self, f: np.ndarray) -> tuple[np.ndarray, float]:
        """Exact feasibility: ``f`` mixed with the uniform distribution (moment matrix = identity),
        ``(1 - theta) f + theta e_()`` with ``theta = -lambda_min / (1 - lambda_min)`` (0 when PSD)."""
        lam_min = float(sla.eigh(self.moment_matrix(f), eigvals_only=True, subset_by_index=[0, 0],
                                 check_finite=False)[0])
        if lam_min >= 0:
            return f, 0.0
        theta = -lam_min / (1.0 - lam_min)
        f = (1.0 - theta) * f
        f[0] = 1.0
        return f, theta

    def solve(self, g: np.ndarray, *, warm_start: bool = True, on_fail: str = "warn"
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Project the measurement ``g`` (Fourier-form targets, see ``fourier_form``).

        Returns ``(f, info)``; ``f`` has :attr:`n_moments` entries with ``f[0] = 1``
        and ``M(f)`` PSD.  ``on_fail``: ``"raise"`` (ProjectionError), ``"warn"``
        or ``"return"`` when ``max_iter`` is reached before the tolerance; the
        flag ``info["converged"]`` says which.
        """
        check_on_fail(on_fail)
        t0 = time.perf_counter()
        gg = np.zeros(self.n_moments)
        g = np.asarray(g, dtype=float).ravel()
        if g.size > self.n_moments or not np.all(np.isfinite(g)):
            raise InvalidParameterError("g must be finite with at most one entry per moment")
        gg[:g.size] = g
        a, cnt = self.a, self.count
        ag = a * gg
        rho = self.rho0
        N = self.basis_size
        if warm_start and self._warm is not None:
            L, rho = self._warm[0].copy(), self._warm[1]
            f0 = np.where(a > 0, gg, 0.0)
            if self.init == "cumulant":
                f0[0] = 1.0
                f0 = cumulant_completion(self.index, f0, a > 0)
            X = self.moment_matrix(f0)
            X[0, 0] = 1.0
            X = self._psd(X)
        else:
            L = np.zeros((N, N))
            f0 = np.where(a > 0, gg, 0.0)
            f0[0] = 1.0
            if self.init == "cumulant":
                f0 = cumulant_completion(self.index, f0, a > 0)
            X = self._psd(self.moment_matrix(f0))
        f = np.zeros(self.n_moments)
        converged = False
        stop = "max_iter"
        dist: float | None = None
        gap_scale = None if self.gap_tol is None else self.gap_tol * math.sqrt(float(measured_count(a)))
        r_p = r_d = np.inf
        it = 0
        mem = self.anderson
        if mem:
            # Anderson memory: differences of the residuals g = T(v) - v (upper triangle: the least squares
            # fit reads each symmetric pair once, half the memory traffic) and of the images T(v) (full),
            # with the Gram matrix of the residual differences
            upper = np.flatnonzero(np.triu(np.ones((N, N), dtype=bool)))
            dG = np.empty((mem, upper.size))
            dT = np.empty((mem, N * N))
            gram = np.zeros((mem, mem))
            h_prev = np.zeros(mem)                                  # dG @ g of the previous iterate
        n_hist = slot = 0
        last: tuple[np.ndarray, np.ndarray] | None = None       # (g, T(v)) of the previous iterate
        pending = False                                         # the current v is an Anderson extrapolation
        res_prev = 0.0
        w_plain = np.empty(0)
        n_acc = n_rej = 0
        for it in range(1, self.max_iter + 1):
            S = self.adjoint(X - L)
            f = (ag + rho * S) / (a + rho * cnt)
            f[0] = 1.0
            Mf = self.moment_matrix(f)
            X_old = X
            if mem:
                gv = Mf - X_old
                gv *= self.alpha                                    # g(v) = T(v) - v for v = X + L
                w = X_old + gv                                      # the over-relaxed M(f) ...
                w += L                                              # ... + L = T(v)
                res = float(np.linalg.norm(gv))
                if pending:
                    pending = False
                    if res > ANDERSON_SAFEGUARD * res_prev:         # safeguard: take the plain step instead
                        n_rej += 1
                        n_hist = slot = 0
                        last = None
                        X = self._psd(w_plain)
                        L = w_plain - X
                        continue
                    n_acc += 1
                res_prev = res
                gr, wr = gv.ravel()[upper], w.ravel()
                if last is not None:
                    np.subtract(gr, last[0], out=dG[slot])
                    np.subtract(wr, last[1], out=dT[slot])
                    n_hist = min(n_hist + 1, mem)
                h = dG[:n_hist] @ gr
                if last is not None:
                    # Gram row of the new difference dG[slot] = g - g_prev: dG[j] . g - dG[j] . g_prev, the
                    # second term kept from the previous iterate (row j unchanged for j != slot)
                    row = h - h_prev[:n_hist]
                    row[slot] = float(dG[slot] @ dG[slot])
                    gram[slot, :n_hist] = row
                    gram[:n_hist, slot] = row
                    slot = (slot + 1) % mem
                last = (gr, wr)                                     # never written in place
                h_prev[:n_hist] = h
                if n_hist:
                    G = gram[:n_hist, :n_hist].copy()
                    G.flat[::n_hist + 1] += ANDERSON_REG * float(np.trace(G)) + 1e-300
                    try:
                        gamma = np.linalg.solve(G, h)
                    except np.linalg.LinAlgError:
                        n_hist = slot = 0
                        last = None
                    else:
                        w_plain = w
                        w = (wr - gamma @ dT[:n_hist]).reshape(N, N)
                        pending = True
                X = self._psd(w)
                L = w - X
            else:
                Mh = self.alpha * Mf + (1.0 - self.alpha) * X_old   # over-relaxation
                X = self._psd(Mh + L)
                L += Mh - X
            r_p = float(np.linalg.norm(Mf - X))
            eps_p = self.tol * (1.0 + max(np.linalg.norm(Mf), np.linalg.norm(X)))
            if r_p > eps_p and it % 5 and it < self.max_iter:
                continue        # neither the stopping test nor the penalty update needs the dual residual
            r_d = rho * float(np.linalg.norm(self.adjoint(X - X_old)))
            eps_d = self.tol * (1.0 + rho * float(np.linalg.norm(self.adjoint(L))))
            if r_p <= eps_p and r_d <= eps_d:
                converged, stop = True, "residuals"
                break
            if gap_scale is not None and it % GAP_CHECK_EVERY == 0:
                # the same formula at the (slightly infeasible) iterate first: no bound, but when it is far
                # above the threshold the feasibility eigenvalue is not worth computing
                if certified_distance(self, f, gg, -rho * L) <= GAP_SKIP_FACTOR * gap_scale:
                    f_feas = self._feasible(f)[0]
                    dist = certified_distance(self, f_feas, gg, -rho * L)
                    if gap_scale < dist <= GAP_POLISH_FACTOR * gap_scale:     # polishing gains about 2x at most
                        dist = best_certificate(self, f_feas, gg, -rho * L, GAP_POLISH_ROUNDS, self._psd,
                                                target=gap_scale)
                    if dist <= gap_scale:
                        converged, stop = True, "gap"
                        break
            if it % 5 == 0:
                if r_p / eps_p > 10 * r_d / eps_d:
                    rho *= 2.0
                    L /= 2.0
                elif r_d / eps_d > 10 * r_p / eps_p:
                    rho /= 2.0
                    L *= 2.0
                else:
                    continue
                # v = X + L changed scale: the Anderson memory no longer describes the map
                n_hist = slot = 0
                last = None
                pending = False
        self._warm = (L, rho)
        f, theta = self._feasible(f)
        # the returned answer's own certificate (the multiplier -rho L is PSD): after a gap stop the polished
        # bound just computed for this very f; otherwise one adjoint (no polishing: each round is a decomposition)
        if stop != "gap":
            dist = certified_distance(self, f, gg, -rho * L)
        obj = float(np.sum(a * (f - gg) ** 2))
        info = {"solver": "admm", "iterations": it, "primal_residual": r_p, "dual_residual": r_d,
                "converged": converged, "stop": stop, "certified_distance": dist,
                "theta": theta, "rho": rho, "objective_fourier": obj,
                "time": time.perf_counter() - t0, "moment_matrix_order": N, "degree": self.degree}
        if mem:
            info.update(anderson=mem, anderson_accepted=n_acc, anderson_rejected=n_rej)
        msg = (f"ADMM for the cube tables projection did not reach tol={self.tol:g}"
               + ("" if self.gap_tol is None else f" nor gap_tol={self.gap_tol:g}") + " in "
               f"{self.max_iter} iterations; raise max_iter or tol")
        apply_on_fail(converged, on_fail, msg, {**info, "value": f})
        return f, info


__all__ = ["CubeTablesProjector", "OPTIONS"]

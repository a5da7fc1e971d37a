r"""Dual certificates at a known rank-one optimum: Douglas-Rachford on the dual spectrahedron.

For a linear conic problem :math:`p^\star=\min q^\top x` s.t. :math:`Ax+s=b`, :math:`s\in\{0\}\times
\mathcal K_r\times\mathcal S_+^N` whose largest PSD block (the moment matrix, order :math:`N`) has one
nonzero per row and whose zero cone is the single row :math:`y_0 = 1`, the dual is

.. math::

    \max_{y}\; -t \quad\text{s.t.}\quad q + a_0 t + A_r^\top y_r + A_M^\top \operatorname{svec}(Z) = 0,
    \quad y_r\in\mathcal K_r^*,\; Z\succeq 0 .

When a feasible point of value :math:`-\hat p` is known (the Dirac moments of the best point of
a power method, :class:`~sosproj.sdp.lowrank_support.TensorRounding`) and the relaxation is tight,
fixing :math:`t = \hat p + \epsilon` leaves a **feasibility problem**: find :math:`(Z, y_r)` in the
affine set :math:`\mathcal A_t` and in the cone :math:`\mathcal C = \mathcal S_+^N\times\mathcal K_r^*`.
:class:`DualFeasibility` solves it by Douglas-Rachford splitting (Lions & Mercier 1979; for
feasibility Bauschke, Combettes & Luke 2004),

.. math::

    a_k = \Pi_{\mathcal A_t}(z_k),\qquad z_{k+1} = z_k + \Pi_{\mathcal C}(2a_k - z_k) - a_k ,

which converges to a point whose shadow :math:`a_k` lies in the intersection, and reaches it in
finitely many steps when the intersection has interior points (here: :math:`\epsilon > 0`).

* :math:`\Pi_{\mathcal A_t}` is closed form: on the moment block :math:`A_M^\top A_M` is diagonal
  (every entry of the moment matrix is one moment), the other rows enter through Woodbury's identity
  with one sparse LU of order ``len(y_r)``, factored once. In full-matrix form it subtracts a
  multiple of each moment's class mean, :math:`O(N^2)` per step.
* :math:`\Pi_{\mathcal S_+^N}(X) = X - \sum_{\lambda_i<0}\lambda_i v_iv_i^\top` needs only the
  **negative** eigenpairs of the reflected iterate, a handful near a strictly complementary
  solution (the dual matrix has corank one at a rank-one optimum): :class:`NegativeEigenpairs`
  gets them from a warm-started block Krylov (Rayleigh-Ritz) step, :math:`O(N^2 k)`, with an
  exact partial eigendecomposition as fallback. No full eigendecomposition is needed. With
  ``method="filter"`` it applies a Chebyshev-filtered subspace iteration instead, with no cap on
  the block: early iterates have tens to hundreds of negative eigenvalues.
* The start can be the closed-form **flattening certificate** (:func:`flattening_certificate`)
  of a cubic, scaled to ``t``.

Nothing here is trusted: every answer is certified by
:class:`~sosproj.sdp.support_bounds.SupportCertifier` (dual repair + verified
:math:`\lambda_{\min}` + trace bound), and the point comes from the feasible primal.

>>> import numpy as np
>>> from sosproj.poly import MomentRelaxation, unit_ball
>>> from sosproj.sdp import compile_support
>>> R = MomentRelaxation(unit_ball(2), 4)
>>> prob = compile_support(R, 3, np.eye(2)[0][:, None, None] * np.eye(2)[0][None, :, None]
...                        * np.eye(2)[0][None, None, :])            # W = e_1^{(x)3}: value 1
>>> feas = DualFeasibility(prob)
>>> run = feas.run(prob.q, 1.0 + 1e-7, max_iter=2000)
>>> run.iterations > 0 and run.y.shape == (prob.m,)
True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.linalg import splu

from sosproj.errors import InvalidParameterError, SolverNotAvailableError
from sosproj.sdp.cones import SQRT2, project_psd_svec, ritz_block, svec, svec_dim, svec_indices
from sosproj.sdp.conic import ConicProblem
from sosproj.sdp.gpu import device_eigh

#: orders up to which the exact fallback is LAPACK's MRRR on the negative eigenvalues; Lanczos above
DENSE_PARTIAL_MAX = 2500

#: the Krylov residual tolerance follows the Douglas-Rachford step (inexact projections), capped
RTOL_FACTOR = 0.05
RTOL_MAX = 1e-3

#: from this Krylov tolerance on, the exact fallback runs in single precision
SINGLE_PRECISION_RTOL = 1e-4

#: degree of the Chebyshev filter of ``NegativeEigenpairs(method="filter")``
FILTER_DEGREE = 4

#: :meth:`NegativeEigenpairs.lowest`: at most this many calls, stopped once the lowest Ritz value moves by at most
#: ``LOWEST_RTOL`` relative
LOWEST_PASSES = 12
LOWEST_RTOL = 1e-2


class NegativeEigenpairs:
    r"""All negative eigenpairs of a sequence of slowly changing symmetric matrices.

    A call first tries a **warm-started block Krylov** step from the previous basis :math:`X`
    (the negative Ritz vectors plus ``extra`` more): Rayleigh-Ritz on
    :math:`\operatorname{span}[X, MX, M^2X]`, accepted when the block's largest Ritz value
    (of its lowest ``k``) is non-negative and the negative Ritz pairs have residuals at most
    ``rtol`` :math:`\|M\|_F`. Otherwise, and every ``resync`` calls, an exact partial
    eigendecomposition: MRRR (``syevr``) on :math:`(-\infty, 0)` up to
    :data:`DENSE_PARTIAL_MAX`, Lanczos (``eigsh``) with a growing count above.

    ``cap`` (``method="filter"`` only): return at most the ``cap`` most negative eigenpairs. The
    block then has ``cap`` plus a quarter columns whatever the number of negative eigenvalues,
    and the filter damps the spectrum above the block's largest Ritz value, which may itself be
    negative. While the cap binds, the Ritz pairs of the block are accepted without the residual
    test (a Rayleigh-Ritz step removes the negative part of the compression to the block whatever
    its accuracy, and a tight test made the filter fall back to the exact decomposition in most
    steps: ``benchmarks/results_support/experiments/support5_prototypes.txt``).
    :math:`X - \sum_{j\le\text{cap}}\lambda_jv_jv_j^\top` is then a partial projection onto
    :math:`\mathcal S_+`, exact (to ``rtol``) once at most ``cap`` eigenvalues are negative.

    ``device`` (a resolved PyTorch device, :mod:`sosproj.sdp.gpu`; default None): every call is the
    exact decomposition, on that device (:func:`~sosproj.sdp.gpu.device_eigh`: all eigenvalues, the
    negative eigenvectors back; single precision by the same rule, at most ``cap`` pairs), with no
    Krylov or filter step: a GPU's full ``syevd`` costs less than the host's filter.

    >>> ne = NegativeEigenpairs(3)
    >>> lam, V = ne(np.diag([2.0, -1.0, 0.5]), 1e-10)
    >>> lam.tolist(), np.abs(V[:, 0]).tolist()
    ([-1.0], [0.0, 1.0, 0.0])
    """

    def __init__(self, d: int, extra: int = 6, resync: int = 50, passes: int = 3,
                 method: str = "krylov", degree: int | None = None, cap: int | None = None,
                 device: str | None = None) -> None:
        if method not in ("krylov", "filter"):
            raise InvalidParameterError("method must be 'krylov' or 'filter' (negative eigenpairs)")
        if cap is not None and (method != "filter" or int(cap) < 1):
            raise InvalidParameterError("cap (a positive count) needs method='filter' (negative eigenpairs)")
        self.d = int(d)
        self.cap = int(cap) if cap is not None else None
        self.device = device
        self.passes = int(passes)
        self.extra = int(extra)
        self.resync = int(resync)
        self.method = method
        self.degree = int(degree) if degree is not None else FILTER_DEGREE
        self.X: np.ndarray | None = None
        self.n_neg = 0
        self.calls = self.krylov_accepted = self.exact_calls = 0
        self._top: np.ndarray | None = None        # Ritz vector of the largest eigenvalue (filter bound)
        self._cut = 0.0                              # largest Ritz value of the last accepted block
        self._single: np.ndarray | None = None       # this call's single-precision M (filter passes)
        self._cast_buf: np.ndarray | None = None

    def __call__(self, M: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        self._single = None                          # M in single precision, cast once per call (_filter)
        out = None
        if self.X is not None and self.calls % self.resync != 0 and self.device is None:
            for _ in range(self.passes):
                out = self._krylov(M, rtol) if self.method == "krylov" else self._filter(M, rtol)
                if out is not None or self.X is None:
                    break
        if out is None:
            self.exact_calls += 1
            out = self._exact(M, rtol)
        return out

    def lowest(self, M: np.ndarray, max_passes: int = LOWEST_PASSES, rel: float = LOWEST_RTOL) -> float:
        r"""An estimate of :math:`\min(0, \lambda_{\min}(M))`: the lowest Ritz value of repeated calls on the same
        ``M`` (with a ``cap``, each a Chebyshev-filtered subspace iteration from the last block, Zhou & Saad 2007),
        stopped once it moves by at most ``rel`` relative, after ``max_passes`` calls at most; a call without a
        negative Ritz value is settled by the exact partial decomposition. A Ritz value is
        :math:`\ge\lambda_{\min}`: the estimate errs on the optimistic side only (a screen before a Cholesky
        check, or a stage switch, never a certificate)."""
        prev = None
        val = 0.0
        for _ in range(max(1, int(max_passes))):
            lam, _ = self(M, 1e-3)
            val = float(lam[0]) if lam.size else 0.0
            if val >= 0:
                # the block may have lost the bottom of the spectrum (the matrix moved since the last call):
                # the exact decomposition decides, and reseeds the block
                lam, _ = self.exact(M, 1e-3)
                return float(lam[0]) if lam.size else 0.0
            if prev is not None and abs(val - prev) <= rel * abs(prev):
                break
            prev = val
        return val

    def exact(self, M: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray]:
        """The exact partial decomposition (the fallback of :meth:`__call__`), counted in ``exact_calls``;
        the next calls warm-start from its eigenvectors."""
        self.exact_calls += 1
        return self._exact(M, rtol)

    def _upper(self, M: np.ndarray, steps: int = 4) -> float:
        r"""An estimate from above of :math:`\lambda_{\max}(M)`: a few power steps from the last top
        vector, Ritz value plus residual norm plus 10% of the spread (the filter only needs the
        interval it damps to cover the top of the spectrum approximately)."""
        u = self._top
        if u is None or u.shape[0] != M.shape[0]:
            u = np.random.default_rng(self.calls).standard_normal(M.shape[0])
        u = u / np.linalg.norm(u)
        for _ in range(steps):
            w = M @ u
            u = w / max(float(np.linalg.norm(w)), 1e-300)
        w = M @ u
        theta = float(u @ w)
        if theta < 0:                             # the power method found the bottom: the top is below -theta
            theta = -theta
        self._top = u
        return theta + float(np.linalg.norm(w - theta * u)) + 0.1 * abs(theta)

    def _filter(self, M: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray] | None:
        r"""One Chebyshev-filtered subspace iteration (Zhou & Saad 2007) from the last basis.

        The block is multiplied by :math:`T_m((M - cI)/e)`, the Chebyshev polynomial of degree
        ``degree`` that is bounded by one on :math:`[a, b]` (:math:`a` the largest Ritz value kept
        last time, at least a small positive cut; :math:`b` an estimate of :math:`\lambda_{\max}`)
        and grows fast below :math:`a`, then orthonormalized, followed by Rayleigh-Ritz. Accepted
        as :meth:`_krylov`; single precision while ``rtol`` is at least
        :data:`SINGLE_PRECISION_RTOL`. Cost :math:`O(N^2 k\,\text{degree})`, no cap on ``k``."""
        X = self.X
        assert X is not None
        single = rtol >= SINGLE_PRECISION_RTOL
        Mk = M
        if single:                                   # one cast per call, into a buffer kept across calls
            if self._single is None:
                buf = self._cast_buf
                if buf is None or buf.shape != M.shape:
                    buf = self._cast_buf = np.empty(M.shape, dtype=np.float32)
                np.copyto(buf, M, casting="same_kind")
                self._single = buf
            Mk = self._single
        Xk = X.astype(Mk.dtype, copy=False)
        k = X.shape[1]
        b = self._upper(M)
        a = self._cut if self._capped() else max(self._cut, 1e-3 * b)
        if a >= b:
            return None
        c, e = 0.5 * (a + b), 0.5 * (b - a)
        Y0 = Xk
        Y1 = (Mk @ Xk - c * Xk) * (1.0 / e)
        for _ in range(1, self.degree):
            Y2 = (Mk @ Y1 - c * Y1) * (2.0 / e) - Y0
            Y0, Y1 = Y1, Y2
            nrm = float(np.abs(Y1).max())
            if nrm > 1e15:                        # rescale (the recurrence is linear)
                Y0, Y1 = Y0 / nrm, Y1 / nrm
        Q, _ = np.linalg.qr(Y1)
        MQ = Mk @ Q
        T = Q.T @ MQ
        theta, U = np.linalg.eigh(0.5 * (T + T.T))
        theta = theta.astype(float)
        n_neg = int(np.searchsorted(theta, 0.0))
        if self.cap is not None and k >= self._block(self.cap):
            n_neg = min(n_neg, self.cap)           # the block holds the cap's eigenpairs: no widening
        elif n_neg >= k - max(1, self.extra // 2):  # the block may miss negative eigenvalues: widen
            kk = min(self.d, 2 * k + self.extra, self._block(self.cap) if self.cap is not None else self.d)
            if kk > self.d // 2:
                self.X = None
                return None
            extra = np.random.default_rng(self.calls).standard_normal((self.d, kk - k))
            self.X = np.concatenate([(Q @ U).astype(float), extra], axis=1)
            self._cut = 0.0
            return None
        Yv = (Q @ U[:, :n_neg]).astype(float)
        if n_neg and not (self.cap is not None and n_neg >= self.cap):
            Rn = (MQ @ U[:, :n_neg]).astype(float) - Yv * theta[:n_neg]
            if float(np.max(np.linalg.norm(Rn, axis=0))) > rtol * max(float(np.linalg.norm(M)), 1e-300):
                self.X = (Q @ U).astype(float)  # refined basis for another pass
                self._cut = float(theta[-1])
                return None
        self.krylov_accepted += 1
        self.n_neg = n_neg
        kk = min(self.d, self._block(n_neg), theta.size)
        self.X = (Q @ U[:, :kk]).astype(float)
        self._cut = float(theta[kk - 1]) if kk <= theta.size else 0.0
        return theta[:n_neg], Yv

    def uncapped(self) -> NegativeEigenpairs:
        """A tracker without the cap that starts from this one's block (a warm start for the full
        projections that follow a capped stage; its exact fallback would otherwise start from an
        empty block)."""
        out = NegativeEigenpairs(self.d, self.extra, self.resync, self.passes, self.method, self.degree,
                                 device=self.device)
        out.X = None if self.X is None else self.X.copy()
        out.n_neg, out._top, out._cut = self.n_neg, self._top, 0.0
        return out

    def _block(self, n_neg: int) -> int:
        """Block size of the filter for ``n_neg`` negative eigenpairs: a quarter more (at least
        ``extra`` more); with a cap, that of the cap at most."""
        if self.cap is not None:
            n_neg = min(n_neg, self.cap)
        return n_neg + max(self.extra, n_neg // 4)

    def _capped(self) -> bool:
        """Whether the last accepted block was cut at the cap (its largest Ritz value may be negative)."""
        return self.cap is not None and self.n_neg >= self.cap

    def _krylov(self, M: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray] | None:
        X = self.X
        assert X is not None
        theta_k, Y, MY, Q = ritz_block(M, X, "smallest")
        k = X.shape[1]
        neg = theta_k < 0
        n_neg = int(neg.sum())
        if n_neg >= k:                      # the next eigenvalue may be negative as well: widen
            self.X = np.concatenate([Y, Q[:, k:2 * k]], axis=1) if 2 * k <= max(16, self.d // 10) else None
            return None
        if n_neg:
            Rn = MY[:, neg] - Y[:, neg] * theta_k[neg]
            if float(np.max(np.linalg.norm(Rn, axis=0))) > rtol * max(float(np.linalg.norm(M)), 1e-300):
                self.X = Y                  # refined basis for another pass
                return None
        self.krylov_accepted += 1
        self._keep(theta_k, Y, n_neg)
        return theta_k[:n_neg], Y[:, :n_neg]

    def _keep(self, lam: np.ndarray, V: np.ndarray, n_neg: int) -> None:
        self.n_neg = n_neg
        if self.method == "filter":
            k = min(V.shape[1], self._block(n_neg))
            self.X = V[:, :k] if k > n_neg and k <= self.d // 2 else None
            if self.X is None:
                self._cut = 0.0
            else:
                self._cut = float(lam[k - 1]) if lam[k - 1] > 0 or self._capped() else 0.0
            return
        k = min(self.d, n_neg + self.extra)
        self.X = V[:, :k] if V.shape[1] >= k and k <= max(16, self.d // 10) else None

    def _exact(self, M: np.ndarray, rtol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        d = self.d
        if self.device is not None:
            Mk = M.astype(np.float32) if rtol >= SINGLE_PRECISION_RTOL else M
            full = d if self.cap is None else min(d, self._block(self.cap))

            def wanted(w: np.ndarray) -> slice:
                n = int(np.searchsorted(w, 0.0))      # the negative pairs and the margin _keep holds
                return slice(0, min(full, self._block(n) if self.method == "filter" else n + self.extra))

            lam, V = device_eigh(Mk, self.device, wanted)
            lam, V = lam[:V.shape[1]].astype(float), V.astype(float)
        elif d <= DENSE_PARTIAL_MAX or self.method == "filter":
            k = min(d, self._block(self.n_neg) if self.method == "filter" else self.n_neg + self.extra)
            full = d if self.cap is None else min(d, self._block(self.cap))
            # single precision while the iteration is far from converged (rtol well above float32's
            # accuracy): about twice as fast
            Mk = M.astype(np.float32) if rtol >= SINGLE_PRECISION_RTOL else M
            lam, V = sla.eigh(Mk, subset_by_index=[0, k - 1], driver="evr", check_finite=False)
            while lam[-1] < 0 and k < full:
                k = min(full, 2 * k)
                lam, V = sla.eigh(Mk, subset_by_index=[0, k - 1], driver="evr", check_finite=False)
            lam, V = lam.astype(float), V.astype(float)
        else:
            from scipy.sparse.linalg import eigsh

            k = min(d - 2, self.n_neg + self.extra)
            v0 = self.X[:, 0] if self.X is not None else None
            while True:
                lam, V = eigsh(M, k=k, which="SA", tol=1e-10, v0=v0, maxiter=20 * d)
                order = np.argsort(lam)
                lam, V = lam[order], V[:, order]
                if lam[-1] >= 0 or k >= d // 4:
                    break
                k = min(d // 4, 2 * k)
        n_neg = int(np.searchsorted(lam, 0.0))
        if self.cap is not None:
            n_neg = min(n_neg, self.cap)
        self._keep(lam, V, n_neg)
        return lam[:n_neg], V[:, :n_neg]


@dataclass(frozen=True)
class FlatteningCertificate:
    r"""A closed-form dual certificate of a cubic support function on the unit ball (see
    :func:`flattening_certificate`): the Gram matrix ``Z`` of the moment block, the localizing
    multiplier ``yr`` (the other rows, as in :class:`DualFeasibility`) and the value ``bound``."""

    bound: float
    Z: np.ndarray
    yr: np.ndarray


def flattening_certificate(feas: DualFeasibility, q: np.ndarray, T: np.ndarray, basis: np.ndarray,
                           loc_basis: np.ndarray, rtol: float = 1e-8) -> FlatteningCertificate | None:
    r"""The **flattening (AM-GM) certificate** of :math:`p(x) = \langle T, x^{\otimes 3}\rangle` on the unit ball.

    With :math:`m_2` the degree-2 monomials, :math:`B` the flattening of the symmetric :math:`T`
    with :math:`p(x) = x^\top B\,m_2(x)` (:math:`B_{i,jk} = T_{ijk}` for :math:`j = k`,
    :math:`2T_{ijk}` for :math:`j < k`), :math:`D = \operatorname{diag}(1, 2)` the weights of
    :math:`|x|^4 = m_2^\top D\,m_2` and :math:`a = \|BD^{-1/2}\|_2`,

    .. math::

        a - p(x) = \tfrac12\bigl|\sqrt a\,x - B m_2/\sqrt a\bigr|^2
        + \tfrac1{2a}\,m_2^\top(a^2D - B^\top B)\,m_2 + \bigl(a + \tfrac a2|x|^2\bigr)(1 - |x|^2),

    an explicit SOS certificate of :math:`\max_{|x|\le1} p \le a` (Gram matrix
    :math:`\tfrac12[[aI, -B], [-B^\top, aD]]` on :math:`(x, m_2)`, positive semidefinite by the
    choice of :math:`a`; localizing Gram :math:`\operatorname{diag}(a, \tfrac a2 I)`). For Gaussian
    tensors :math:`a` is 1.6-2.5 times the support (``n = 20``-64). It is used as the **start** of
    the Douglas-Rachford iteration, scaled to the dual value (it is then a certificate for
    :math:`t - (t/a)\,p`, and the affine projection adds the missing :math:`(1 - t/a)\,p`).

    The map to the problem's rows is checked: ``None`` when the certificate is not in the affine
    set at ``t = a`` to relative accuracy ``rtol`` (another relaxation, another basis).
    """
    T = np.asarray(T, dtype=float)
    if T.ndim != 3:
        return None
    n = T.shape[0]
    rows = {tuple(int(v) for v in b): r for r, b in enumerate(np.asarray(basis))}
    zero = (0,) * n
    unit = [tuple(int(i == j) for j in range(n)) for i in range(n)]
    if zero not in rows or any(u not in rows for u in unit) or feas.N != len(rows):
        return None
    pairs = [(j, k) for j in range(n) for k in range(j, n)]
    keys = [tuple(int(i == j) + int(i == k) for i in range(n)) for (j, k) in pairs]
    if any(key not in rows for key in keys):
        return None
    j_idx = np.array([j for j, _ in pairs])
    k_idx = np.array([k for _, k in pairs])
    dd = np.where(j_idx == k_idx, 1.0, 2.0)
    B = T[:, j_idx, k_idx] * dd
    a = float(np.linalg.norm(B / np.sqrt(dd), 2))
    if not np.isfinite(a) or a <= 0:
        return None
    r1 = np.array([rows[u] for u in unit])
    r2 = np.array([rows[key] for key in keys])
    Z = np.zeros((feas.N, feas.N))
    Z[np.ix_(r1, r1)] = 0.5 * a * np.eye(n)
    Z[np.ix_(r1, r2)] = -0.5 * B
    Z[np.ix_(r2, r1)] = -0.5 * B.T
    Z[r2, r2] = 0.5 * a * dd
    lrows = {tuple(int(v) for v in b): r for r, b in enumerate(np.asarray(loc_basis))}
    if len(feas.rest_blocks) != 1 or feas.rest_blocks[0][1] != len(lrows) or zero not in lrows \
            or any(u not in lrows for u in unit) or len(lrows) != n + 1:
        return None
    S = np.zeros((n + 1, n + 1))
    S[lrows[zero], lrows[zero]] = a
    for u in unit:
        S[lrows[u], lrows[u]] = 0.5 * a
    yr = svec(S)
    PZ, Pr = feas.affine(Z, yr, feas.rhs(q, a))
    err = float(np.sqrt(np.sum((PZ - Z) ** 2) + np.sum((Pr - yr) ** 2)))
    if err > rtol * max(1.0, float(np.sqrt(np.sum(Z * Z) + yr @ yr))):
        return None
    return FlatteningCertificate(a, Z, yr)


@dataclass
class DualRun:
    """Outcome of :meth:`DualFeasibility.run`: the last shadow as a conic dual vector, and how it ended.

    ``status``: ``"certified"`` (``check`` accepted it), ``"max_iter"`` or ``"time_limit"``.
    ``check_result``: what the last call of ``check`` returned (``None`` if never called).
    """

    y: np.ndarray
    status: str
    iterations: int
    step: float
    check_result: Any
    krylov_share: float
    state: tuple[np.ndarray, np.ndarray] | None = None


class DualFeasibility:
    r"""The dual structure of one support problem and the Douglas-Rachford solver (module docs).

    Raises :class:`~sosproj.errors.SolverNotAvailableError` when ``problem`` lacks the structure
    (a quadratic term, several zero-cone rows, second-order cones, a moment block whose rows
    have more than one nonzero, or a variable in no row of it).
    """

    def __init__(self, problem: ConicProblem) -> None:
        if problem.P is not None:
            raise SolverNotAvailableError("solver 'rankone' needs a linear cost (a support function)")
        cones = problem.cones
        if cones.zero != 1 or cones.soc or not cones.psd:
            raise SolverNotAvailableError("solver 'rankone' needs one equality row (y_0 = 1), no second-order "
                                          "cones and a PSD moment block")
        A = sp.csr_matrix(problem.A)
        self.m, self.n = A.shape
        self.problem = problem
        self.a0 = np.asarray(A[0].toarray()).ravel()
        self.b0 = float(problem.b[0])
        if self.b0 == 0 or np.count_nonzero(self.a0) != 1:
            raise SolverNotAvailableError("solver 'rankone' needs the normalization row y_0 = 1")
        starts, blocks = [], []
        pos = cones.zero + cones.nonneg
        for d in cones.psd:
            starts.append(pos)
            blocks.append(d)
            pos += svec_dim(d)
        big = int(np.argmax(blocks))
        N = blocks[big]
        self.N = N
        sl = slice(starts[big], starts[big] + svec_dim(N))
        Ab = A[sl]
        if not np.all(np.diff(Ab.indptr) == 1):
            raise SolverNotAvailableError("solver 'rankone' needs a moment block with one nonzero per row")
        i, j = svec_indices(N, "scs")
        self._svec_scale = np.where(i == j, 1.0, SQRT2)
        # below order 1000 the svec positions as one flat index (dual_vector without recomputing them)
        self._svec_flat = i * N + j if N < 1000 else None
        coef = Ab.data / self._svec_scale
        cls = np.empty((N, N), dtype=np.intp)      # intp: bincount and take would convert every step
        cls[i, j] = Ab.indices
        cls[j, i] = Ab.indices
        self.cls = cls.ravel()
        if np.all(coef == coef[0]):
            self.w: float | np.ndarray = float(coef[0])
            wsq = np.bincount(self.cls, minlength=self.n) * coef[0] ** 2
        else:
            w = np.empty((N, N))
            w[i, j] = coef
            w[j, i] = coef
            self.w = w.ravel()
            wsq = np.bincount(self.cls, weights=self.w ** 2, minlength=self.n)
        if np.any(wsq == 0):
            raise SolverNotAvailableError("solver 'rankone' needs every variable in the moment block")
        self.dinv = 1.0 / wsq
        self.big_slice = sl
        # the other rows (nonnegative, the other PSD blocks): y_r, Woodbury with one sparse LU
        rest = np.concatenate([np.arange(cones.zero, sl.start), np.arange(sl.stop, self.m)]).astype(np.int64)
        self.rest_rows = rest
        Ar = A[rest]
        self.Ar = Ar.tocsr()
        self.ArT = sp.csr_matrix(Ar.T)
        self._S = (sp.identity(len(rest), format="csc") + (Ar @ sp.diags(self.dinv) @ Ar.T).tocsc()).tocsc()
        self._lu: Any = None
        self.rest_blocks: list[tuple[slice, int]] = []       # positions inside y_r
        off = 0
        if cones.nonneg:
            self.rest_blocks.append((slice(0, cones.nonneg), 1))
            off = cones.nonneg
        for st, d in zip(starts, blocks):
            if st == sl.start:
                continue
            self.rest_blocks.append((slice(off, off + svec_dim(d)), d))
            off += svec_dim(d)

    @property
    def lu(self) -> Any:
        """Sparse LU of ``I + A_r D^{-1} A_r'`` (factored on first use; ``None`` without other rows)."""
        if self._lu is None and self._S.shape[0]:
            self._lu = splu(self._S)
        return self._lu

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_lu"] = None                   # SuperLU objects do not pickle: refactor after loading
        return state

    @staticmethod
    def estimate_memory(N: int, n: int, m_rest: int) -> int:
        """Bytes: five dense ``N x N`` matrices, the class map, small terms, and four more for the
        filtered eigenpairs (single-precision copy, blocks of up to ``N / 2`` columns) and the
        flattening start."""
        return int(8 * 9 * N * N + 8 * N * N + 8 * (4 * n + 6 * m_rest) + 32 * m_rest)

    # ------------------------------------------------------------------ operators
    def _K(self, Z: np.ndarray, yr: np.ndarray) -> np.ndarray:
        w = self.w
        vals = Z.ravel() * w if isinstance(w, np.ndarray) else Z.ravel()
        out = np.bincount(self.cls, weights=vals, minlength=self.n)
        if not isinstance(w, np.ndarray):
            out *= w
        if yr.size:
            out += self.ArT @ yr
        return out

    def _solve(self, r: np.ndarray) -> np.ndarray:
        """``(D + A_r' A_r)^{-1} r`` by Woodbury."""
        u = self.dinv * r
        if self.lu is None:
            return u
        return u - self.dinv * (self.ArT @ self.lu.solve(self.Ar @ u))

    def affine(self, Z: np.ndarray, yr: np.ndarray, rhs: np.ndarray,
               out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Orthogonal projection onto ``{(Z, y_r): A_M' svec(Z) + A_r' y_r = rhs}`` (Frobenius metric).

        ``out``: an ``N x N`` float64 C-contiguous work matrix other than ``Z`` that receives the moment block
        (no new ``N x N`` array; the same numbers)."""
        mu = self._solve(self._K(Z, yr) - rhs)
        if out is None or out is Z or out.shape != Z.shape or out.dtype != np.float64 \
                or not out.flags.c_contiguous:
            out = np.empty_like(Z, dtype=np.float64, order="C")
        corr = out.reshape(-1)
        if isinstance(self.w, np.ndarray):
            np.take(mu, self.cls, out=corr)
            corr *= self.w
        else:       # a uniform weight: scale the n multipliers, not the N^2 entries
            np.take(mu * self.w, self.cls, out=corr)
        np.subtract(Z, out, out=out)
        return out, (yr - self.Ar @ mu if yr.size else yr)

    def cone_rest(self, yr: np.ndarray) -> np.ndarray:
        out = yr.copy()
        for sl, d in self.rest_blocks:
            out[sl] = np.maximum(yr[sl], 0.0) if d == 1 else project_psd_svec(yr[sl], d)
        return out

    def dual_vector(self, t: float, Z: np.ndarray, yr: np.ndarray) -> np.ndarray:
        """The conic dual vector ``y`` of ``(t, Z, y_r)`` (normalization row scaled so that ``-b'y = -t``)."""
        y = np.zeros(self.m)
        y[0] = t / self.b0
        if self._svec_flat is not None:
            y[self.big_slice] = np.take(Z, self._svec_flat) * self._svec_scale
        else:
            i, j = svec_indices(self.N, "scs")
            y[self.big_slice] = Z[i, j] * self._svec_scale
        y[self.rest_rows] = yr
        return y

    def rhs(self, q: np.ndarray, t: float) -> np.ndarray:
        """Right-hand side of the affine set at ``t``: ``-q - a_0 t / b_0``."""
        return -np.asarray(q, dtype=float) - self.a0 * (t / self.b0)

    # ------------------------------------------------------------------ solver
    def run(self, q: np.ndarray, t: float, *, max_iter: int = 10000, deadline: float | None = None,
            check: Callable[[np.ndarray, np.ndarray], Any] | None = None, check_every: int = 5,
            neg: NegativeEigenpairs | None = None, primal: np.ndarray | None = None, relax: float = 1.0,
            shift: float = 0.0, state: tuple[np.ndarray, np.ndarray] | None = None,
            rtol_factor: float = RTOL_FACTOR) -> DualRun:
        r"""Douglas-Rachford for a dual point with value ``t`` (see the module docs).

        ``check(Z, y_r)`` is called on the shadow every ``check_every`` iterations (its conic dual
        vector is :meth:`dual_vector`) and stops the run when it returns a truthy value
        (``status="certified"``). ``deadline`` is a ``time.perf_counter()`` value; a step is not
        started when a step as long as the longest so far would end past it (an exact decomposition
        can follow cheap filtered steps)
        (``status="time_limit"``; before, the step in flight finished first: a 600 s limit at order
        5,151 ended after 662 s, ``benchmarks/results_support/support6_n100.txt``). ``state``: the
        Douglas-Rachford point of an earlier run (``DualRun.state``, for instance at a larger ``t``) to
        continue from; ``shift`` adds a multiple of the identity to the start (``primal``, default zero).
        ``rtol_factor``: the eigenpairs' residual tolerance (relative to :math:`\|M\|_F`) is this factor times
        the last relative step, at most :data:`RTOL_MAX` (default :data:`RTOL_FACTOR`; inexact projections
        whose errors shrink with the steps, as Douglas-Rachford with summable errors allows).
        """
        if not (np.isfinite(rtol_factor) and rtol_factor > 0):
            raise InvalidParameterError("rtol_factor must be positive (Douglas-Rachford eigenpair tolerance)")
        rhs = self.rhs(q, t)
        N = self.N
        zZ = np.zeros((N, N)) if primal is None else np.array(primal, dtype=float)
        if shift:
            zZ[np.diag_indices(N)] += shift
        zr = np.zeros(len(self.rest_rows))
        if state is not None:                 # continue from an earlier run's Douglas-Rachford point
            zZ, zr = state
        neg = neg if neg is not None else NegativeEigenpairs(N)
        step = np.inf
        rtol = 1e-3
        last = None
        status = "max_iter"
        it = 0
        aZ, ar = zZ, zr
        # two N x N work matrices for the whole run (fresh ones cost page faults every step): the shadow and the
        # reflection / step; the shadow of the last step is returned by value
        work_a = np.empty((N, N))
        work_r = np.empty((N, N))
        longest = 0.0                         # the longest step so far (the deadline's forecast)
        for it in range(1, max_iter + 1):
            if deadline is not None and it > 1 and time.perf_counter() + longest > deadline:
                # the next step (an order-N decomposition at least) would end past the deadline: stop
                # before it (this run's first step always runs)
                status = "time_limit"
                it -= 1
                break
            t_step = time.perf_counter()
            aZ, ar = self.affine(zZ, zr, rhs, work_a)       # positional: wrappers that take (*args) keep working
            # in place on one work matrix (each N x N pass costs about a fifth of the affine projection):
            # the reflection, its projection, the step
            RZ = np.multiply(aZ, 2.0, out=work_r)
            RZ -= zZ
            lam, V = neg(RZ, rtol)
            if lam.size:
                _subtract_outer(RZ, V * lam, V)
            pr = self.cone_rest(2.0 * ar - zr)
            RZ -= aZ
            dZ = RZ
            dr = pr - ar
            if relax != 1.0:
                dZ *= relax
                dr = relax * dr
            zZ += dZ
            zr = zr + dr
            flat = dZ.ravel()
            step = float(np.sqrt(np.dot(flat, flat) + dr @ dr)) / max(1.0, float(np.linalg.norm(aZ)))
            rtol = float(np.clip(rtol_factor * step, 1e-12, RTOL_MAX))
            if check is not None and it % check_every == 0:
                last = check(aZ, ar)
                if last:
                    status = "certified"
                    break
            longest = max(longest, time.perf_counter() - t_step)
            if deadline is not None and time.perf_counter() > deadline:
                status = "time_limit"
                break
        share = neg.krylov_accepted / max(neg.calls, 1)
        return DualRun(self.dual_vector(t, aZ, ar), status, it, step, last, share, (zZ, zr))


def _subtract_outer(M: np.ndarray, A: np.ndarray, B: np.ndarray) -> None:
    r""":math:`M \leftarrow M - AB^\top` in place for a C-contiguous float64 ``M`` (BLAS ``dgemm`` into the
    transposed, Fortran-ordered view of ``M``: no ``N x N`` temporary); numpy's product elsewhere."""
    if M.dtype == np.float64 and M.flags.c_contiguous and A.dtype == np.float64 and B.dtype == np.float64:
        # M' is Fortran-ordered: M' <- M' - B A', i.e. M <- M - A B'
        out = sla.blas.dgemm(-1.0, B, A, beta=1.0, c=M.T, trans_b=True, overwrite_c=True)
        if not np.shares_memory(out, M):      # never seen: f2py copied c
            M[...] = out.T
    else:
        M -= A @ B.T


__all__ = ["DualFeasibility", "NegativeEigenpairs", "DualRun", "DENSE_PARTIAL_MAX", "FlatteningCertificate",
           "LOWEST_PASSES", "LOWEST_RTOL",
           "flattening_certificate"]

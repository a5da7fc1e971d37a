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
  exact partial eigendecomposition as fallback. No full eigendecomposition is needed.

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

from sosproj.errors import SolverNotAvailableError
from sosproj.sdp.cones import SQRT2, project_psd_svec, ritz_block, svec_dim, svec_indices
from sosproj.sdp.conic import ConicProblem

#: orders up to which the exact fallback is LAPACK's MRRR on the negative eigenvalues; Lanczos above
DENSE_PARTIAL_MAX = 2500

#: the Krylov residual tolerance follows the Douglas-Rachford step (inexact projections), capped
RTOL_FACTOR = 0.05
RTOL_MAX = 1e-3

#: from this Krylov tolerance on, the exact fallback runs in single precision
SINGLE_PRECISION_RTOL = 1e-4


class NegativeEigenpairs:
    r"""All negative eigenpairs of a sequence of slowly changing symmetric matrices.

    A call first tries a **warm-started block Krylov** step from the previous basis :math:`X`
    (the negative Ritz vectors plus ``extra`` more): Rayleigh-Ritz on
    :math:`\operatorname{span}[X, MX, M^2X]`, accepted when the block's largest Ritz value
    (of its lowest ``k``) is non-negative and the negative Ritz pairs have residuals at most
    ``rtol`` :math:`\|M\|_F`. Otherwise, and every ``resync`` calls, an exact partial
    eigendecomposition: MRRR (``syevr``) on :math:`(-\infty, 0)` up to
    :data:`DENSE_PARTIAL_MAX`, Lanczos (``eigsh``) with a growing count above.

    >>> ne = NegativeEigenpairs(3)
    >>> lam, V = ne(np.diag([2.0, -1.0, 0.5]), 1e-10)
    >>> lam.tolist(), np.abs(V[:, 0]).tolist()
    ([-1.0], [0.0, 1.0, 0.0])
    """

    def __init__(self, d: int, extra: int = 6, resync: int = 50, passes: int = 3) -> None:
        self.d = int(d)
        self.passes = int(passes)
        self.extra = int(extra)
        self.resync = int(resync)
        self.X: np.ndarray | None = None
        self.n_neg = 0
        self.calls = self.krylov_accepted = 0

    def __call__(self, M: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        out = None
        if self.X is not None and self.calls % self.resync != 0:
            for _ in range(self.passes):
                out = self._krylov(M, rtol)
                if out is not None or self.X is None:
                    break
        if out is None:
            out = self._exact(M, rtol)
        return out

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
        k = min(self.d, n_neg + self.extra)
        self.X = V[:, :k] if V.shape[1] >= k and k <= max(16, self.d // 10) else None

    def _exact(self, M: np.ndarray, rtol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        d = self.d
        if d <= DENSE_PARTIAL_MAX:
            k = min(d, self.n_neg + self.extra)
            # single precision while the iteration is far from converged (rtol well above float32's
            # accuracy): about twice as fast
            Mk = M.astype(np.float32) if rtol >= SINGLE_PRECISION_RTOL else M
            lam, V = sla.eigh(Mk, subset_by_index=[0, k - 1], driver="evr", check_finite=False)
            while lam[-1] < 0 and k < d:
                k = min(d, 2 * k)
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
        self._keep(lam, V, n_neg)
        return lam[:n_neg], V[:, :n_neg]


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
        coef = Ab.data / self._svec_scale
        cls = np.empty((N, N), dtype=np.int32 if self.n < 2 ** 31 else np.int64)
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
        """Bytes: five dense ``N x N`` matrices, the class map, and small terms."""
        return int(8 * 5 * N * N + 8 * N * N + 8 * (4 * n + 6 * m_rest) + 32 * m_rest)

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

    def affine(self, Z: np.ndarray, yr: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Orthogonal projection onto ``{(Z, y_r): A_M' svec(Z) + A_r' y_r = rhs}`` (Frobenius metric)."""
        mu = self._solve(self._K(Z, yr) - rhs)
        corr = mu[self.cls]
        if isinstance(self.w, np.ndarray):
            corr *= self.w
        else:
            corr *= self.w
        out = Z - corr.reshape(self.N, self.N)
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
            shift: float = 0.0, state: tuple[np.ndarray, np.ndarray] | None = None) -> DualRun:
        r"""Douglas-Rachford for a dual point with value ``t`` (see the module docs).

        ``check(Z, y_r)`` is called on the shadow every ``check_every`` iterations (its conic dual
        vector is :meth:`dual_vector`) and stops the run when it returns a truthy value
        (``status="certified"``). ``deadline`` is
        a ``time.perf_counter()`` value. ``state``: the Douglas-Rachford point of an earlier run
        (``DualRun.state``, for instance at a larger ``t``) to continue from; ``shift`` adds a
        multiple of the identity to the start (``primal``, default zero).
        """
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
        for it in range(1, max_iter + 1):
            aZ, ar = self.affine(zZ, zr, rhs)
            RZ = 2.0 * aZ - zZ
            lam, V = neg(RZ, rtol)
            if lam.size:
                RZ -= (V * lam) @ V.T
            pr = self.cone_rest(2.0 * ar - zr)
            dZ = RZ - aZ
            dr = pr - ar
            if relax != 1.0:
                dZ *= relax
                dr = relax * dr
            zZ += dZ
            zr = zr + dr
            step = float(np.sqrt(np.sum(dZ * dZ) + dr @ dr)) / max(1.0, float(np.linalg.norm(aZ)))
            rtol = float(np.clip(RTOL_FACTOR * step, 1e-12, RTOL_MAX))
            if check is not None and it % check_every == 0:
                last = check(aZ, ar)
                if last:
                    status = "certified"
                    break
            if deadline is not None and time.perf_counter() > deadline:
                status = "time_limit"
                break
        share = neg.krylov_accepted / max(neg.calls, 1)
        return DualRun(self.dual_vector(t, aZ, ar), status, it, step, last, share, (zZ, zr))


__all__ = ["DualFeasibility", "NegativeEigenpairs", "DualRun", "DENSE_PARTIAL_MAX"]

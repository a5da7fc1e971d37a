r"""Semismooth Newton on a moment block whose multiplier is nearly full rank: negative eigenpairs only.

In the augmented Lagrangian of a support problem at a rank-one optimum (the moment matrix
:math:`Y = vv^\top`, the dual matrix :math:`Z\succeq 0` with :math:`Zv = 0`, rank :math:`N-1`), the
moment block of :math:`W = y + \sigma(Ax - b)` is :math:`Z - \sigma Y`: all but a few of its
eigenvalues are positive. The projection and the generalized Jacobian of
:math:`\Pi_{\mathcal S_+}` at :math:`W = Q\Lambda Q^\top` then need only the **negative** eigenpairs
:math:`(\lambda_j, q_j)`, :math:`j = 1..k`:

.. math::

    \Pi_{\mathcal S_+}(W) = W - \textstyle\sum_j \lambda_j q_jq_j^\top ,\qquad
    \mathcal J[H] = H - Q_-GQ_-^\top - \textstyle\sum_j (c_jq_j^\top + q_jc_j^\top),

with :math:`G = Q_-^\top HQ_-` and :math:`c_j = -\lambda_j\,P_+(W-\lambda_jI)^{-1}P_+Hq_j`
(:math:`P_+ = I - Q_-Q_-^\top`): this is the Jacobian of SDPNAL+ (Zhao, Sun & Toh 2010;
:mod:`sosproj.sdp.backends.ssnal`) written from the negative side, where the weights
:math:`-\lambda_j/(\lambda_i - \lambda_j)` over the positive eigenvalues :math:`\lambda_i` become
one resolvent per negative eigenvalue. The resolvent on the positive space is the inverse of
:math:`B_j = W - \lambda_j I + Q_-\operatorname{diag}(\tau - \lambda_k + \lambda_j)Q_-^\top`, which
is positive definite (its eigenvalues are :math:`\lambda_i - \lambda_j > 0` and :math:`\tau`) and is
factored by **one Cholesky** per Newton step and negative eigenvalue: :math:`N^3/3` flops against
about :math:`9N^3` for the full eigendecomposition of :class:`~sosproj.sdp.backends.ssnal._PsdBlock`.
The negative eigenpairs come from :class:`~sosproj.sdp.rankone_dual.NegativeEigenpairs`
(warm-started block Krylov, exact partial eigendecomposition as fallback). With more than
:data:`MAX_NEGATIVE` negative eigenvalues the block falls back to the full eigendecomposition. With more than
:data:`PARTIAL_RESOLVENTS` of them (a face handed over early: one eigenvalue near :math:`-\sigma|v|^2` and dozens
near zero) the Jacobian keeps the resolvents of the :data:`WIDE_RESOLVENTS` most negative pairs only: the
Jacobian at the point where the others are set to zero (issue 15's session 35).

>>> rng = np.random.default_rng(0)
>>> B = rng.standard_normal((6, 6)); W = B @ B.T - 3.0 * np.outer(B[0], B[0]) / (B[0] @ B[0])
>>> from sosproj.sdp.cones import svec
>>> full, part = _PsdBlock(6, single=False), PartialPsdBlock(6)
>>> (p1, _), (p2, _) = full.decompose(svec(W)), part.decompose(svec(W))
>>> h = svec(rng.standard_normal((6, 6)) + rng.standard_normal((6, 6)).T)
>>> bool(np.allclose(p1, p2)), bool(np.allclose(full.jacobian(h), part.jacobian(h)))
(True, True)
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.linalg import blas as _blas

from sosproj.sdp.backends.ssnal import _PsdBlock
from sosproj.sdp.cones import SQRT2
from sosproj.sdp.gpu import device_eigh
from sosproj.sdp.rankone_dual import NegativeEigenpairs

#: beyond this many negative eigenvalues the block uses the full eigendecomposition. Raising it (64, with
#: :data:`FIRST_NEGATIVE_HINT` = 64) lets faces of up to 64 negatives stay partial, beyond :data:`PARTIAL_RESOLVENTS`
#: of them with the wide-face Jacobian of :data:`WIDE_RESOLVENTS` (issue 15's session 35: the ``n = 64`` Newton phase
#: after a 0.1 hand-over 17.1 s against 26.1 s CPU, ``n = 48`` from a 0.6 hand-over 1.10x, same run). Not the default:
#: at the default hand-over the faces of ``n <= 64`` hold at most 8 (the paths are identical) and at ``n = 100``,
#: where they hold 9-118, the change is unmeasured (``benchmarks/results_support/n64_35/notes.md``)
MAX_NEGATIVE = 8

#: faces with at most this many negative eigenpairs: the partial path's Jacobian factors the resolvent of every one
#: (one Cholesky of order ``N`` per Newton step each, one pair of triangular solves per product: exact, as before
#: issue 15's session 35, when the path held at most 8). ``None``: every pair whatever their number
PARTIAL_RESOLVENTS: int | None = 8

#: on faces with more than :data:`PARTIAL_RESOLVENTS` negative eigenpairs the Jacobian keeps the resolvents of this
#: many, the most negative ones, and drops the cross terms :math:`c_j` of the others: it is then the Jacobian at
#: :math:`W' = W - \sum_{j>K}\lambda_jq_jq_j^\top` (those eigenvalues set to zero: an element of the
#: B-subdifferential of :math:`\Pi_{\mathcal S_+}` there, the limit of the Jacobians at
#: :math:`W' - \varepsilon\sum_{j>K}q_jq_j^\top`), as :data:`TANGENT_DOMINANT` does for the preconditioner. The
#: projection, the residuals and the certificate use every negative pair. At ``n = 64`` after an early hand-over
#: the face holds one eigenvalue near :math:`-\sigma|v|^2` (-2,520) and ~45 in [-0.12, 0)
#: (``benchmarks/results_support/n64_35/notes.md``)
WIDE_RESOLVENTS = 1

#: from this many negative eigenpairs on, :meth:`PartialPsdBlock.jacobian` at order :data:`FAST_SVEC_MIN` and above
#: unpacks ``h`` once and uses one ``gemm`` and one ``syr2k`` (:meth:`PartialPsdBlock._jacobian_dense`) instead of
#: ``k`` packed products and ``k`` packed updates (:meth:`PartialPsdBlock._jacobian_packed`)
DENSE_JACOBIAN_MIN = 9

#: the negative eigenvalues the face block's first (cold) decomposition expects (a block hint only: it still
#: widens while the last eigenvalue it finds is negative); 0 before issue 15's session 28, 8 before its session 35
#: (= :data:`MAX_NEGATIVE`: one ``syevr`` block of :data:`MAX_NEGATIVE` plus a quarter, all negative -> the full
#: ``eigh`` at once; the ``n = 64`` face after a 0.1 hand-over has 45-46, so with the default a block of 10 goes full)
FIRST_NEGATIVE_HINT = 8

#: Krylov residual tolerance (relative to the Frobenius norm) of the negative eigenpairs
EIG_RTOL = 1e-10

#: a decomposition whose negative part leaves an eigenvalue below ``-COMPLETE_RTOL * |M|_F`` is redone
#: exactly (:meth:`PartialPsdBlock._complete`)
COMPLETE_RTOL = 1e-8

#: from this order on ``to_matrix`` / ``to_svec`` copy contiguous rows instead of gathering (it was 64 before
#: issue 15's n30 session; at order 496 the gather is 2.2x / 1.4x faster, at 2,145 the copies are, and its
#: map is one more ``N x N`` index array: ``benchmarks/results_support/n30/notes.md``)
FAST_SVEC_MIN = 1000
_TILE = 64

#: block Krylov passes before the exact partial eigendecomposition (each costs O(N^2 k), the
#: exact one O(N^3))
KRYLOV_PASSES = 3

#: how the warm-started decompositions find the negative eigenpairs: ``"filter"`` (a Chebyshev filter of
#: degree :data:`FACE_FILTER_DEGREE` on the positive spectrum, then Rayleigh-Ritz) or ``"krylov"`` (block
#: Krylov, before issue 15's n30 session). The negative eigenvalue of ``Z - sigma Y`` is far below the
#: positive spectrum (-8 ... -620 against 0.018 ... at ``n = 30``), yet three block Krylov passes rarely reached
#: the residual 1e-10 |W|_F: 7 of 11 decompositions of a solve fell back to the exact one; with the filter 1
#: (the first, without a warm start). ``benchmarks/results_support/n30/notes.md``
FACE_EIG = "filter"

#: :meth:`PartialPsdBlock.tangent` (the exact Woodbury preconditioner of the Newton phase) up to this many negative
#: eigenvalues: its capacitance matrix has order ``N k`` (one Cholesky, ``(N k)^3 / 3`` flops). 1: at ``n = 30``
#: the ``k = 2`` capacitance cost more than the CG steps it saved (tensor 2: 0.67 s against 0.61 s CPU with 1,
#: ``benchmarks/results_support/n30b/notes.md``); 2 is exact as well (tested)
TANGENT_MAX_NEGATIVE = 1

#: with more than :data:`TANGENT_MAX_NEGATIVE` negative eigenvalues, :meth:`PartialPsdBlock.tangent` factors the
#: defect of the Jacobian at :math:`W' = W - \sum_{j > K}\lambda_jq_jq_j^\top` (the :math:`K` most negative
#: eigenpairs kept, the others set to zero): the exact inverse of a nearby Newton matrix, used as the CG
#: preconditioner (CG still runs against the true one). False: ``None`` there (the diagonal preconditioner),
#: as before issue 15's session 28. At ``n = 64`` the face holds one eigenvalue near ``-sigma |v|^2`` and 1-5
#: of size 1e-3 ... 0.2 (``benchmarks/results_support/n64_28/``)
TANGENT_DOMINANT = True
FACE_FILTER_DEGREE = 8

#: after a decomposition with more than :data:`MAX_NEGATIVE` negative eigenvalues, the next one is a full ``eigh``
#: straight away (:meth:`PartialPsdBlock._decompose_full`), until one finds at most :data:`MAX_NEGATIVE`; False: the
#: filter and the exact partial decompositions first every time, as before issue 15's session 30 (at ``n = 100`` the
#: face holds ~100 negative eigenvalues: ``benchmarks/results_support/n100_30/notes.md``)
FULL_STICKY = True

#: after a full decomposition (:data:`FULL_STICKY`), :meth:`PartialPsdBlock.tangent`'s dominant-pair Woodbury
#: preconditioner from its negative pairs (with the diagonal ``jacobian_diag`` of ones it assumes), as on the partial
#: path; False: the diagonal preconditioner there, as before issue 15's session 30. At ``n = 48`` from a 0.3 hand-over
#: (16-58 negative eigenvalues, every decomposition full): 959 -> 275 CG steps, 27.5 -> 11.9 s CPU after the rough
#: phase, the same certificate (``benchmarks/results_support/n100_30/notes.md``)
FULL_TANGENT = True

#: the full path's Jacobian product by ``syr2k`` from order :data:`FAST_SVEC_MIN` on
#: (:meth:`PartialPsdBlock._jacobian_full_syr2k`); False: the parent's, as before issue 15's session 30
FULL_SYR2K = True

#: the full path's Jacobian products (:meth:`PartialPsdBlock.jacobian` after a full decomposition) in float32 while
#: the Newton system is solved to a relative tolerance of at least this much (the face solver sets
#: :meth:`PartialPsdBlock.set_single` per Newton step from its CG tolerance; ``None``: float64 always, as before
#: issue 15's session 31). Only CG's products: the line search, every residual and the certifier stay in float64,
#: so the certificate is unchanged in kind (CG then solves a system perturbed by float32 rounding, about
#: :math:`10^{-7}` relative per product, well below the tolerance it is asked for). At order 5,151 with 142 negative
#: eigenvalues a product costs 0.58 s against 1.05 s CPU in float64 (``../results_support/n100_30/notes.md``)
FULL_SINGLE_RTOL: float | None = 1e-5


class PartialPsdBlock(_PsdBlock):
    """A PSD block of the semismooth Newton method computed from its negative eigenpairs (module docs).

    Same interface as :class:`~sosproj.sdp.backends.ssnal._PsdBlock` (``decompose``, ``jacobian``,
    ``jacobian_diag``); ``partial_calls`` / ``full_calls`` count which path each decomposition took,
    ``missed_calls`` the warm-started decompositions that missed a negative eigenvalue and were redone
    exactly.
    ``device``: the negative eigenpairs' decomposition on that PyTorch device
    (:class:`~sosproj.sdp.rankone_dual.NegativeEigenpairs`'s option).
    """

    def __init__(self, d: int, device: str | None = None) -> None:
        super().__init__(d, single=False)
        self.Q = np.zeros((d, 0))       # eigenvectors only after a full decomposition (an N x N identity before)
        self.neg = NegativeEigenpairs(d, passes=KRYLOV_PASSES, device=device, method=FACE_EIG,
                                      degree=FACE_FILTER_DEGREE)
        # the first (cold) decomposition asks for FIRST_NEGATIVE_HINT negative eigenvalues' block at once: at
        # n = 64 the hand-over face has 6-8, and a first block of 6 pairs (then 12) took two partial decompositions
        self.neg.n_neg = FIRST_NEGATIVE_HINT
        self.partial = False
        self.M: np.ndarray | None = None
        self.lam_n = np.zeros(0)
        self.Qn = np.zeros((d, 0))
        self._chol: list[tuple[int, np.ndarray]] | None = None
        self.partial_calls = self.full_calls = self.missed_calls = 0
        self._full_next = False
        self._full_tangent = False
        self._exact_seen = 0
        self._tan_rc: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        # gather map svec position -> matrix entry (faster than the parent's scatter), below FAST_SVEC_MIN only:
        # above it the contiguous copies are faster and the map would be one more N x N array
        self._gather: np.ndarray | None = None
        if d < FAST_SVEC_MIN:
            pos = np.empty(d * d, dtype=np.intp)
            pos[self.proj.lower] = np.arange(self.proj.lower.size)
            pos[self.proj.upper] = np.arange(self.proj.lower.size)
            self._gather = pos.reshape(d, d)
        self._inv_scale = 1.0 / self.proj.scale
        self._offsets = np.concatenate([[0], np.cumsum(np.arange(d, 0, -1))])
        self._tile_iu = {m: np.triu_indices(m, 1) for m in {min(_TILE, d - a) for a in range(0, d, _TILE)}}

    def set_single(self, single: bool) -> None:
        """Jacobian products of the full path in float32 (``True``) or float64 from now on
        (:data:`FULL_SINGLE_RTOL`); the cached factors are rebuilt on the next product when this changes."""
        single = bool(single)
        if single != self.single:
            self.single = single
            self._factors = None

    def to_matrix(self, v: np.ndarray) -> np.ndarray:
        """``smat(v)`` by contiguous slices: row ``j`` of the upper triangle is svec column ``j``
        (``"scs"`` order), then the lower triangle by blocked transposes (4-5x faster than a gather
        at order 2,145)."""
        d = self.d
        if self._gather is not None:
            return np.take(v * self._inv_scale, self._gather)
        u = v * self._inv_scale
        M = np.empty((d, d))
        off = self._offsets
        for j in range(d):
            M[j, j:] = u[off[j]:off[j + 1]]
        for a in range(0, d, _TILE):
            e = min(d, a + _TILE)
            M[e:, a:e] = M[a:e, e:].T
            blk = M[a:e, a:e]
            iu = self._tile_iu[e - a]
            blk.T[iu] = blk[iu]
        return M

    def to_svec(self, M: np.ndarray) -> np.ndarray:
        """``svec`` of a symmetric ``M`` from its upper-triangle rows (contiguous slices)."""
        d = self.d
        if d < FAST_SVEC_MIN:
            return np.take(M, self.proj.lower) * self.proj.scale
        return np.concatenate([M[j, j:] for j in range(d)]) * self.proj.scale

    def decompose(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(Pi_+(w), Pi_+(-w))`` in svec from the negative eigenpairs (full ``eigh`` beyond
        :data:`MAX_NEGATIVE` of them)."""
        M = self.to_matrix(w)
        self._full_tangent = False
        if FULL_STICKY:
            if self._full_next:
                return self._decompose_full(w, M)
            neg = self.neg
            if neg.device is None and neg.X is None and neg._block(neg.n_neg) > MAX_NEGATIVE:   # cold: no doubling
                return self._decompose_cold(w, M)
        lam, V = self.neg(M, EIG_RTOL)
        if lam.size <= MAX_NEGATIVE and self.neg.exact_calls == self._exact_seen and not self._complete(M, lam, V):
            # the warm-started block missed a negative eigenvalue: the exact partial decomposition
            lam, V = self.neg.exact(M, EIG_RTOL)
            self.missed_calls += 1
        self._exact_seen = self.neg.exact_calls
        if lam.size > MAX_NEGATIVE:
            self.partial = False
            self.full_calls += 1
            self._full_next = FULL_STICKY
            return super().decompose(w)
        return self._set_partial(w, M, lam, V)

    def _decompose_full(self, w: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""The decomposition after one with more than :data:`MAX_NEGATIVE` negative eigenvalues
        (:data:`FULL_STICKY`): one full ``eigh`` straight away. The warm-started filter, the exact partial
        decompositions (``syevr`` on a block doubled until it holds every negative eigenvalue: one tridiagonal
        reduction each) and then the full ``eigh`` all reduced the same matrix: at order 5,151 with ~100 negative
        eigenvalues, five or six :math:`\tfrac43N^3` reductions per Newton step instead of one (with a ``device``:
        one device ``eigh`` with every eigenvector, instead of the device's partial one and then the host's full
        one). When the full
        decomposition finds at most :data:`MAX_NEGATIVE` negative eigenvalues, the partial path takes over with
        those exact pairs (and seeds the filter's warm start with them)."""
        if self.neg.device is not None:             # every eigenpair from the device, in float64
            lam, Q = device_eigh(M, self.neg.device)
        else:
            lam, Q = np.linalg.eigh(M)
        neg = int(np.searchsorted(lam, 0.0))          # the partial path's count: eigenvalues < 0
        if neg > MAX_NEGATIVE:
            self.partial = False
            self.full_calls += 1
            self._full_next = True
            out = self._set_full(w, M, lam, Q)
            # FULL_TANGENT: the negative pairs (views) and M for tangent(); else nothing of the partial path is kept
            self._full_tangent = FULL_TANGENT and neg <= self.npos
            if self._full_tangent:
                self.Qn, self.lam_n, self.M, self._chol = Q[:, :neg], lam[:neg], M, None
            else:
                self.Qn, self.lam_n, self.M, self._chol = np.zeros((self.d, 0)), np.zeros(0), None, None
            return out
        self._full_next = False
        self.neg._keep(lam, Q, neg)                  # the filter's next warm start (as after its exact call)
        return self._set_partial(w, M, lam[:neg], Q[:, :neg].copy())

    def _decompose_cold(self, w: np.ndarray, M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A decomposition without a warm block (the first of a face solver): the filter's exact first step, the
        lowest ``_block(n_neg)`` eigenpairs by ``syevr`` (``n_neg`` = :data:`FIRST_NEGATIVE_HINT` on the first
        call), the same call and numbers as :class:`~sosproj.sdp.rankone_dual.NegativeEigenpairs`' exact step.
        Where all of them are negative the block holds more than :data:`MAX_NEGATIVE`, and instead of doubling the
        block (one more tridiagonal reduction each time: 14, 28, ... 224 at the ``n = 100`` hand-over's 142
        negative eigenvalues) the full ``eigh`` follows at once (:meth:`_decompose_full`)."""
        neg = self.neg
        neg.calls += 1                                  # as its __call__ counts it (resync, the filter's seed)
        k = min(self.d, neg._block(neg.n_neg))
        lam, V = sla.eigh(M, subset_by_index=[0, k - 1], driver="evr", check_finite=False)
        if lam[-1] < 0 and k < self.d:                  # k > MAX_NEGATIVE (the caller's test)
            return self._decompose_full(w, M)
        neg.exact_calls += 1
        n_neg = int(np.searchsorted(lam, 0.0))
        neg._keep(lam, V, n_neg)
        self._exact_seen = neg.exact_calls
        if n_neg > MAX_NEGATIVE:                        # more than MAX_NEGATIVE inside the block: the full eigh
            return self._decompose_full(w, M)
        return self._set_partial(w, M, lam[:n_neg], V[:, :n_neg])

    def _set_partial(self, w: np.ndarray, M: np.ndarray, lam: np.ndarray,
                     V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keep the negative eigenpairs ``(lam, V)`` of ``M = smat(w)`` (all of them) for the partial path;
        return ``(Pi_+(w), Pi_+(-w))`` in svec."""
        self.partial = True
        self.partial_calls += 1
        self.M, self.lam_n, self.Qn, self._chol = M, lam, V, None
        if self.Q.shape[1]:                # a full decomposition's eigenvectors: not needed on this path
            self.Q = np.zeros((self.d, 0))
        self.npos = self.d - lam.size
        if lam.size == 0:
            return w.copy(), np.zeros_like(w)
        Mneg = (V * lam) @ V.T
        return self.to_svec(M - Mneg), -self.to_svec(Mneg)

    @staticmethod
    def _complete(M: np.ndarray, lam: np.ndarray, V: np.ndarray) -> bool:
        r"""Whether ``(lam, V)`` holds every negative eigenvalue of ``M`` below
        :math:`-\varepsilon`, :math:`\varepsilon` = :data:`COMPLETE_RTOL` :math:`\|M\|_F`: one Cholesky
        factorization of :math:`M - V\operatorname{diag}(\lambda)V^\top + \varepsilon I`.

        A warm-started block Krylov step accepts its Ritz pairs when the block's next Ritz value is
        non-negative, which bounds the next eigenvalue from above only: an eigenvalue whose
        eigenvector is nearly orthogonal to the block can be missed. Then :math:`\Pi_{\mathcal S_+}(W)`
        is not PSD and the multiplier keeps that negative eigenvalue through every later update (at
        ``n = 64``: :math:`\lambda_{\min} = -1.9\cdot10^{-3}`, a certified gap stuck at
        :math:`4.6\cdot10^{-4}` for four updates, ``experiments/support7_prototypes.txt`` §1). Costs
        :math:`N^3/3` flops, a fraction of a Newton step's factorizations (one per negative eigenvalue)."""
        P = M - (V * lam) @ V.T if lam.size else M.copy()
        P[np.diag_indices(P.shape[0])] += COMPLETE_RTOL * max(float(np.linalg.norm(M)), 1e-300)
        try:
            sla.cholesky(P, lower=True, check_finite=False, overwrite_a=True)
        except np.linalg.LinAlgError:
            return False
        return True

    def _resolved(self) -> np.ndarray:
        """Indices (into ``lam_n``) of the negative eigenpairs the Jacobian keeps a resolvent for: all of them up to
        :data:`PARTIAL_RESOLVENTS` of them, beyond that the :data:`WIDE_RESOLVENTS` most negative ones."""
        k = self.lam_n.size
        if PARTIAL_RESOLVENTS is None or k <= int(PARTIAL_RESOLVENTS):
            return np.arange(k)
        return np.sort(np.argsort(self.lam_n, kind="stable")[:int(WIDE_RESOLVENTS)])

    def _resolvents(self) -> list[tuple[int, np.ndarray]]:
        """Cholesky factors of ``B_j`` (module docs), one per negative eigenvalue kept (:meth:`_resolved`), with the
        pair's index; cached."""
        if self._chol is None:
            assert self.M is not None
            M, lam, Qn = self.M, self.lam_n, self.Qn
            tau = max(1.0, float(np.max(np.abs(np.diag(M)))))
            out = []
            for j in self._resolved():
                lj = lam[j]
                B = M + (Qn * (tau - lam + lj)) @ Qn.T
                B[np.diag_indices(self.d)] -= lj
                shift = 0.0
                for _ in range(30):
                    try:
                        c = sla.cholesky(B if not shift else B + shift * np.eye(self.d), lower=True,
                                         check_finite=False)
                        break
                    except np.linalg.LinAlgError:
                        shift = max(2.0 * shift, 1e-12 * tau)
                out.append((int(j), c))
            self._chol = out
        return self._chol

    def jacobian(self, h: np.ndarray) -> np.ndarray:
        r"""Apply :math:`\mathcal J\in\partial\Pi_{\mathcal S_+}` at the decomposed point to ``h``."""
        if not self.partial:
            if FULL_SYR2K and self._gather is None and 0 < self.npos < self.d:
                return self._jacobian_full_syr2k(h)
            return super().jacobian(h)
        k = self.lam_n.size
        if k == 0:
            return h.copy()
        if self._gather is None:
            return self._jacobian_packed(h) if k < DENSE_JACOBIAN_MIN else self._jacobian_dense(h)
        P = self._cross(self.to_matrix(h) @ self.Qn) @ self.Qn.T
        sym = np.take(P, self.proj.lower)     # svec(P + P') from P: the lower and the upper triangle
        sym += np.take(P, self.proj.upper)
        sym *= self.proj.scale
        return h - sym

    def _jacobian_full_syr2k(self, h: np.ndarray) -> np.ndarray:
        r""":meth:`~sosproj.sdp.backends.ssnal._PsdBlock.jacobian` after a full decomposition, from order
        :data:`FAST_SVEC_MIN` on: with :math:`Q_a` the smaller eigenspace (``a`` columns), :math:`U = HQ_a`,
        :math:`G = Q_a^\top U`, :math:`T = w\circ(U^\top Q_b)` the same as there, the correction is
        :math:`YQ_a^\top + Q_aY^\top` with :math:`Y = Q_aG/2 + Q_bT^\top` (``d x a``), formed by one ``syr2k`` on
        the lower triangle, whose columns are svec's rows (no ``N x N`` transpose-add, no second triangle):
        four products of :math:`2N^2a` flops as before, one ``N x N`` pass less."""
        Qa, Qb, wt = self._jac_factors()
        H = self.to_matrix(h)
        if H.dtype != Qa.dtype:
            H = H.astype(Qa.dtype)
        U = H @ Qa
        del H
        G = Qa.T @ U
        T = wt * (U.T @ Qb)
        Y = Qb @ T.T
        Y += Qa @ (0.5 * G)
        syr2k = sla.get_blas_funcs("syr2k", (Y, Qa))
        C = syr2k(1.0, Y, Qa, lower=1)        # Fortran order: column j's rows j.. = svec's row j of the correction
        out = self.to_svec(C.T).astype(float, copy=False)
        return out if self.npos <= self.d - self.npos else h - out

    def _cross(self, HQ: np.ndarray) -> np.ndarray:
        r"""``Y`` (``d x k``) with :math:`\mathcal J[H] = H - (YQ_-^\top + Q_-Y^\top)`, from :math:`HQ_-`:
        :math:`Q_-GQ_-^\top + \sum_j(c_jq_j^\top + q_jc_j^\top)` (module docs) with :math:`G = Q_-^\top HQ_-` and
        :math:`c_j = -\lambda_j s_j`, :math:`s_j` the resolvent of :math:`P_+Hq_j`, is :math:`YQ_-^\top + Q_-Y^\top`
        for :math:`Y = Q_-G/2 + C`."""
        Qn = self.Qn
        G = Qn.T @ HQ
        R = HQ - Qn @ G
        C = np.zeros_like(R)            # the columns past _resolved(): dropped (PARTIAL_RESOLVENTS)
        for j, c in self._resolvents():
            C[:, j] = sla.cho_solve((c, True), R[:, j], check_finite=False)
        C -= Qn @ (Qn.T @ C)
        return 0.5 * (Qn @ G) + C * (-self.lam_n)

    def _jacobian_dense(self, h: np.ndarray) -> np.ndarray:
        r""":meth:`jacobian` with many negative pairs (from :data:`DENSE_JACOBIAN_MIN` on, order
        :data:`FAST_SVEC_MIN` and above): ``h`` unpacked once, :math:`HQ_-` by one ``gemm``, the rank-:math:`2k`
        correction :math:`YQ_-^\top + Q_-Y^\top` by one ``syr2k`` on the lower triangle (whose columns are svec's
        rows, as in :meth:`_jacobian_full_syr2k`): about five passes over an ``N x N`` array instead of
        :math:`2k` over the packed triangle (the same numbers to rounding, tested)."""
        Qn = self.Qn
        HQ = self.to_matrix(h) @ Qn
        Y = self._cross(HQ)
        syr2k = sla.get_blas_funcs("syr2k", (Y, Qn))
        C = syr2k(1.0, Y, Qn, lower=1)
        return h - self.to_svec(C.T)

    def _jacobian_packed(self, h: np.ndarray) -> np.ndarray:
        r""":meth:`jacobian` on the packed triangle (from order :data:`FAST_SVEC_MIN` on): svec in SCS order is
        LAPACK's packed lower triangle with the off-diagonal entries scaled by :math:`\sqrt2`, so
        :math:`HQ_-` is ``k`` packed products ``dspmv`` and the symmetric rank-:math:`2k` correction
        :math:`YQ_-^\top + Q_-Y^\top` is ``k`` packed updates ``dspr2``: no ``N x N`` matrix, no
        ``to_matrix`` / ``to_svec`` round trip (2-3x faster at order 2,145 with ``k = 3``; the same numbers
        to rounding, tested)."""
        d, Qn = self.d, self.Qn
        k = Qn.shape[1]
        u = h * self._inv_scale
        HQ = np.empty((d, k))
        for j in range(k):
            HQ[:, j] = _blas.dspmv(d, 1.0, u, Qn[:, j], lower=1)
        Y = self._cross(HQ)
        u[:] = 0.0
        for j in range(k):
            u = _blas.dspr2(d, 1.0, Y[:, j], Qn[:, j], u, lower=1, overwrite_ap=1)
        u *= self.proj.scale
        return h - u

    def tangent_pattern(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        r"""The fixed pattern of :meth:`tangent`'s ``S`` (one column block): svec row ``p = (r, c)`` holds
        :math:`\sqrt2 q_c` in column ``r`` and :math:`\sqrt2 q_r` in column ``c`` (:math:`2q_r` once on the
        diagonal); returns ``(indices, indptr, other, diag)``: CSC structure, the index of ``q`` of each entry,
        and the positions of the diagonal entries (built once, int32: about one ``N x N`` float64 array in all)."""
        if self._tan_rc is not None:
            return self._tan_rc
        d = self.d
        r, c = np.divmod(self.proj.lower, d)
        off = r != c
        p = np.arange(r.size, dtype=np.int32)
        ids = sp.csc_matrix((np.arange(1, r.size + int(off.sum()) + 1, dtype=float),
                             (np.concatenate([p, p[off]]), np.concatenate([r, c[off]]))), shape=(r.size, d))
        perm = ids.data.astype(np.intp) - 1
        del ids.data
        other = np.concatenate([c, r[off]]).astype(np.int32)[perm]
        diag = np.flatnonzero(np.concatenate([~off, np.zeros(int(off.sum()), dtype=bool)])[perm])
        self._tan_rc = (ids.indices, ids.indptr, other, diag.astype(np.int32))
        return self._tan_rc

    def _kept(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Indices of the negative eigenpairs :meth:`tangent` keeps (the :data:`TANGENT_MAX_NEGATIVE` most negative)
        and of the others (set to zero there), or ``None`` where :meth:`tangent` returns ``None``."""
        k_all = self.lam_n.size
        if (not (self.partial or self._full_tangent) or k_all < 1 or self.M is None
                or (k_all > TANGENT_MAX_NEGATIVE and not TANGENT_DOMINANT)):
            return None
        order = np.argsort(self.lam_n)
        k = min(k_all, TANGENT_MAX_NEGATIVE)
        return order[:k], order[k:]

    def tangent_vectors(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The negative eigenpairs :meth:`tangent` keeps, or ``None`` where it returns ``None`` (the key of
        ``ssnal``'s preconditioner reuse)."""
        kept = self._kept()
        if kept is None:
            return None
        return self.lam_n[kept[0]], self.Qn[:, kept[0]]

    def tangent(self) -> tuple[sp.csc_matrix, np.ndarray] | None:
        r"""The Jacobian's defect :math:`I - \mathcal J` as an exact factorization :math:`S\,\mathcal N\,S^\top`
        in svec coordinates, for :math:`1\le k\le` :data:`TANGENT_MAX_NEGATIVE` negative eigenpairs
        :math:`(\lambda_j, q_j)` (``None`` with none, or after a full decomposition). With more negative
        eigenvalues (:data:`TANGENT_DOMINANT`, issue 15's session 28) the :math:`k` most negative pairs are kept and
        the others set to zero: the factorization is that of the Jacobian at
        :math:`W' = W - \sum_{j>k}\lambda_jq_jq_j^\top`, whose Newton matrix is close to the true one (at ``n = 64``
        the others are of size :math:`10^{-3}`-0.2 against one near :math:`-2{,}520`), so its inverse is a CG
        preconditioner, no longer the exact inverse (306 -> 62 CG steps on the ``n = 64`` solve of
        ``benchmarks/results_support/n64_28/notes.md``); ``None`` there without :data:`TANGENT_DOMINANT`.

        With :math:`Q = [q_1..q_k]`, :math:`P_+ = I - QQ^\top` and :math:`\Phi(X) = XQ^\top + QX^\top`
        (:math:`\mathbb R^{N\times k}\to\mathbb S^N`; column :math:`i + jN` of ``S`` is the svec of
        :math:`\Phi(e_ie_j^\top) = e_iq_j^\top + q_je_i^\top`, at most :math:`N` nonzeros), write
        :math:`X = QC + X_\perp`. The Jacobian of the module docs is the identity on :math:`Q\,\mathrm{sym}(C)Q^\top`
        and maps the cross part column by column, :math:`x_{\perp j}\mapsto m_jx_{\perp j}` with
        :math:`m_j = |\lambda_j|(W_+ + |\lambda_j|)^{-1}` (the resolvent), and :math:`I - \mathcal J` vanishes on
        the orthogonal complement of the range of :math:`\Phi`. As :math:`\Phi^*\Phi` is 4 on
        :math:`Q\,\mathrm{sym}(C)` and 2 on the cross part (and :math:`\Phi` vanishes on :math:`Q\,\mathrm{skew}(C)`,
        where any positive weight will do), :math:`I - \mathcal J = \Phi\,\mathcal N\,\Phi^*` with the
        block-diagonal

        .. math::

            \mathcal N^{-1} = \operatorname{diag}_j\bigl(4QQ^\top + 2P_+(W - \lambda_jI)P_+/|\lambda_j|\bigr)
                             = \operatorname{diag}_j\bigl(2P_+WP_+/|\lambda_j| + 2I + 2QQ^\top\bigr),

        returned explicitly (no inverse; positive definite). The Newton matrix is then a rank-:math:`Nk`
        downdate of the ADMM's normal matrix, which :meth:`~sosproj.sdp.backends.ssnal.SsnalBackend._woodbury`
        inverts (the CG preconditioner). Returns ``(S, N^{-1})``.
        """
        kept = self._kept()
        if kept is None:
            return None
        keep, rest = kept
        k = keep.size
        d = self.d
        indices, indptr, other, diag = self.tangent_pattern()
        Q, lam = self.Qn[:, keep], self.lam_n[keep]
        nnz = indices.size
        data = np.empty(k * nnz)
        for j in range(k):
            blk = data[j * nnz:(j + 1) * nnz]
            np.take(Q[:, j], other, out=blk)
            blk *= SQRT2
            blk[diag] = 2.0 * Q[other[diag], j]      # 2 q_r on the diagonal

        S = sp.csc_matrix((data, np.tile(indices, k),
                           np.concatenate([indptr[:-1] + j * nnz for j in range(k)] + [[k * nnz]])),
                          shape=(self.proj.lower.size, d * k))
        MQ = self.M @ Q
        X = self.M - Q @ MQ.T
        X -= MQ @ Q.T
        X += Q @ (Q.T @ MQ) @ Q.T                     # P+ M P+
        if rest.size:                                 # the other negative eigenvalues set to zero: W'
            Qr = self.Qn[:, rest]
            X -= (Qr * self.lam_n[rest]) @ Qr.T
        base = 2.0 * (Q @ Q.T)
        base[np.diag_indices(d)] += 2.0
        if k == 1:
            X *= 2.0 / (-float(lam[0]))
            X += base
            return S, X
        out = np.zeros((d * k, d * k))
        for j in range(k):
            out[j * d:(j + 1) * d, j * d:(j + 1) * d] = X * (2.0 / (-float(lam[j]))) + base
        return S, out

    def jacobian_diag(self) -> np.ndarray:
        """The preconditioner's diagonal: ones (the Jacobian differs from the identity by rank ``2k``; after a full
        decomposition with :data:`FULL_TANGENT`, the base of :meth:`tangent`'s Woodbury preconditioner)."""
        if not (self.partial or self._full_tangent):
            return super().jacobian_diag()
        return np.ones(self.proj.lower.size)


__all__ = ["PartialPsdBlock", "MAX_NEGATIVE", "PARTIAL_RESOLVENTS", "WIDE_RESOLVENTS",
           "DENSE_JACOBIAN_MIN", "EIG_RTOL", "COMPLETE_RTOL", "FACE_EIG", "FACE_FILTER_DEGREE",
           "TANGENT_MAX_NEGATIVE", "TANGENT_DOMINANT", "FIRST_NEGATIVE_HINT", "FULL_STICKY",
           "FULL_SYR2K", "FULL_TANGENT", "FULL_SINGLE_RTOL"]

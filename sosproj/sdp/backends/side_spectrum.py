r"""One side of a symmetric matrix's spectrum for the PSD projection: eigenpairs and their Gram sum.

The projection :math:`\Pi_{\mathcal S_+}(M) = \sum_{\lambda_i>0}\lambda_i v_iv_i^\top
= M - \sum_{\lambda_i<0}\lambda_i v_iv_i^\top` needs the eigenvectors of one side of the spectrum
only, the smaller one. LAPACK's divide and conquer (``syevd``) runs three stages:

1. Householder reduction to a tridiagonal :math:`T = Q^\top M Q` (``sytrd``, :math:`\tfrac43 d^3`
   flops, half of them matrix-vector products);
2. all eigenpairs :math:`T = Z\Lambda Z^\top` of the tridiagonal by divide and conquer (``stevd``);
3. the back-transformation :math:`V = QZ` of **all** :math:`d` eigenvectors (``ormtr``,
   :math:`2d^3` flops).

:func:`side_eigh` runs the same three stages but applies stage 3 to the :math:`k` columns of the
smaller side only (:math:`2d^2k` flops), which it knows exactly after stage 2 (every eigenvalue
is known there, so no side can be too narrow and need widening, unlike MRRR on a guessed
``subset_by_index``). The eigenpairs are those of ``syevd`` (the same reduction and tridiagonal
solver, bitwise on the dev box). Cost against ``syevd`` on random symmetric matrices, one BLAS
thread (``benchmarks/results_sdp/proj4/experiments/partial_evd.txt``): 0.70-0.86 at order 496
and 0.63-0.79 at order 1,326 in double precision (0.74-0.86 and 0.65-0.81 in single) for
:math:`k/d` from 0.05 to 0.5; MRRR on :math:`k` pairs (``syevr``) is cheaper only for small sides
(:func:`mrrr_share_limit`).

**Inverse iteration for stage 2** (``stein_limit``): when the smaller side's eigenvalues form
small clusters, its :math:`k` eigenvectors of the tridiagonal are cheaper by inverse iteration
(``sterf`` for every eigenvalue, then ``stein`` on the :math:`k` of the side) than all :math:`d`
by divide and conquer. ``stein`` re-orthogonalizes each vector against the earlier ones of its
cluster (eigenvalues less than :math:`10^{-3}\|T\|_1` apart), so its cost grows with
:math:`\sum_c |c|^2 d` over the clusters :math:`c` (:func:`cluster_share` is
:math:`\sum_c |c|^2 / d^2`). Measured on moment blocks of real ``lowrank`` iterates, one BLAS
thread (``benchmarks/results_sdp/proj5/experiments/tridiag_side.txt``): ``sterf`` + ``stein``
over ``stevd`` 0.71-0.76 at order 496 with share 0.020-0.028 (``boundary``), 0.86 at order 1,326
with share 0.052, and 1.7-2.7 at shares 0.14-0.21 (``dp``: hundreds of eigenvalues near zero
on the smaller side); :data:`STEIN_CLUSTER_LIMIT` keeps the winning side of that.

:func:`side_gram` then forms the one-sided sum as one ``syrk`` (half the flops of the ``gemm``
:math:`(V\Lambda)V^\top`).

References: Demmel, *Applied Numerical Linear Algebra* (1997), section 5.3 (tridiagonal reduction
and back-transformation); LAPACK Users' Guide, ``xSYEVD`` / ``xSYTRD`` / ``xORMTR`` /
``xSTEIN`` (inverse iteration, Dhillon's analysis in LAPACK Working Note 108).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from sosproj.sdp.gpu import device_eigh, resolve_device

#: :func:`side_eigh` with a ``stein_limit`` runs inverse iteration for the smaller side when its
#: :func:`cluster_share` is at most this (double precision; module docs for the measurements)
STEIN_CLUSTER_LIMIT = 0.03

#: ``stein``'s cluster rule: eigenvalues closer than this times :math:`\|T\|_1` are one cluster
STEIN_CLUSTER_GAP = 1e-3


def cluster_share(lam: np.ndarray, onenorm: float, d: int) -> float:
    r""":math:`\sum_c |c|^2 / d^2` over the clusters of the ascending ``lam`` (consecutive gaps at most
    :data:`STEIN_CLUSTER_GAP` times ``onenorm``, the rule of LAPACK's ``stein``): the re-orthogonalization
    work of inverse iteration on ``lam`` relative to a :math:`d^3` decomposition.

    >>> cluster_share(np.array([-3.0, -2.0, -1.0]), 10.0, 10), cluster_share(np.array([-1e-4, 0.0, 1e-4]), 10.0, 10)
    (0.03, 0.09)
    """
    lam = np.asarray(lam, dtype=float)
    if lam.size == 0 or d <= 0:
        return 0.0
    cuts = np.flatnonzero(np.diff(lam) > STEIN_CLUSTER_GAP * float(onenorm))
    sizes = np.diff(np.concatenate(([0], cuts + 1, [lam.size])))
    return float(np.sum(sizes.astype(float) ** 2)) / float(d) ** 2


def _tridiagonal_onenorm(diag: np.ndarray, off: np.ndarray) -> float:
    a = np.abs(diag).astype(float)
    if off.size:
        e = np.abs(off).astype(float)
        a[:-1] += e
        a[1:] += e
    return float(a.max()) if a.size else 0.0


def _unreduced(diag: np.ndarray, off: np.ndarray) -> bool:
    r"""No off-diagonal entry negligible (LAPACK's splitting test :math:`e_i^2 \le \epsilon^2|d_id_{i+1}|`):
    ``stein`` is then called on one block."""
    if off.size == 0:
        return True
    eps = float(np.finfo(diag.dtype).eps)
    dd = np.abs(diag[:-1].astype(float) * diag[1:].astype(float))
    e2 = off.astype(float) ** 2
    return bool(np.all(e2 > eps * eps * dd + np.finfo(float).tiny))


@lru_cache(maxsize=32)
def _sytrd_lwork(d: int, single: bool) -> int:
    query = lapack.ssytrd_lwork if single else lapack.dsytrd_lwork
    work, info = query(d, lower=1)
    return max(1, int(work)) if info == 0 else max(1, 64 * d)


def side_eigh(M: np.ndarray, overwrite: bool = False, stein_limit: float | None = None,
              info: dict[str, Any] | None = None, device: str | None = None
              ) -> tuple[np.ndarray, np.ndarray, bool, int]:
    r"""Eigenpairs of the smaller side of the spectrum of the symmetric ``M`` (float32 or float64).

    Returns ``(lam, V, positive, n_neg)``: the eigenvalues of that side (ascending), its eigenvectors
    (``d x k``, orthonormal, ``M``'s dtype), whether it is the positive side (eigenvalues
    :math:`\ge 0`; otherwise :math:`< 0`) and the number of negative eigenvalues. Ties go to the
    negative side. Only one triangle is read: the upper one of a C-ordered ``M``, the lower one of
    a Fortran-ordered ``M`` (the lower triangle of its Fortran view); ``overwrite`` lets the
    reduction work in ``M``'s memory.

    With ``stein_limit`` the eigenvalues come from ``sterf`` and, when the side's
    :func:`cluster_share` is at most ``stein_limit`` and the tridiagonal is unreduced, its
    eigenvectors from inverse iteration (``stein``); otherwise (or when ``stein`` reports vectors that
    did not converge) from divide and conquer as without it. ``info``, when given, receives
    ``"stein"`` (whether inverse iteration produced the vectors) and ``"cluster_share"`` (of the
    returned side, for the caller's next choice).

    ``device`` (``None``: the LAPACK path above, unchanged; ``"cpu"``, ``"cuda[:K]"``, ``"auto"``, checked by
    :func:`~sosproj.sdp.gpu.resolve_device`): the whole decomposition on that PyTorch device
    (:func:`~sosproj.sdp.gpu.device_eigh`, ``syevd`` in ``M``'s precision, one triangle read as above)
    and only the smaller side's eigenvectors copied back; same return values and tie rule.
    ``stein_limit`` and ``overwrite`` are ignored there, ``info["stein"]`` is False and
    ``info["cluster_share"]`` uses :math:`\max_i|\lambda_i|` in place of :math:`\|T\|_1`.

    >>> A = np.diag([3.0, -1.0, 2.0, -4.0, 5.0])
    >>> lam, V, positive, n_neg = side_eigh(A)
    >>> lam.tolist(), positive, n_neg, np.abs(V).round(6).T.tolist()
    ([-4.0, -1.0], False, 2, [[0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0]])
    """
    d = M.shape[0]
    single = M.dtype == np.float32
    if M.dtype not in (np.float32, np.float64) or M.shape != (d, d):
        raise ValueError("side_eigh needs a square float32 or float64 matrix")
    if device is not None and (dev := resolve_device(device)) is not None:
        return _side_eigh_device(M, dev, info)
    sytrd, stevd, ormqr = ((lapack.ssytrd, lapack.sstevd, lapack.sormqr) if single
                           else (lapack.dsytrd, lapack.dstevd, lapack.dormqr))
    # a C-ordered symmetric matrix is its own transpose in Fortran order: no copy to hand it over
    A = M.T if M.flags.c_contiguous else M
    c, diag, off, tau, err = sytrd(A, lower=1, lwork=_sytrd_lwork(d, single), overwrite_a=int(overwrite))
    if err != 0:
        raise np.linalg.LinAlgError(f"sytrd failed (info {err})")
    onenorm = _tridiagonal_onenorm(diag, off)
    Z = None
    used_stein = False
    if stein_limit is not None:
        sterf, stein = (lapack.ssterf, lapack.sstein) if single else (lapack.dsterf, lapack.dstein)
        w, err = sterf(diag, off)
        if err != 0:
            raise np.linalg.LinAlgError(f"sterf failed (info {err})")
        w = np.sort(w)
        n_neg = int(np.searchsorted(w, 0.0))
        positive = n_neg > d - n_neg
        cols = slice(n_neg, d) if positive else slice(0, n_neg)
        share = cluster_share(w[cols], onenorm, d)
        if w[cols].size == 0:                       # a definite matrix: no vector is needed
            Z, used_stein = np.zeros((d, 0), dtype=M.dtype), True
        elif share <= stein_limit and _unreduced(diag, off):
            block = np.ones(d, dtype=np.int32)
            split = np.zeros(d, dtype=np.int32)
            split[0] = d
            Zk, err = stein(diag, off, w[cols], block, split)
            if err == 0:
                Z, used_stein = Zk[:, : w[cols].size], True
    if Z is None:
        w, Zd, err = stevd(diag, off, compute_v=1)
        if err != 0:
            raise np.linalg.LinAlgError(f"stevd failed (info {err})")
        n_neg = int(np.searchsorted(w, 0.0))
        positive = n_neg > d - n_neg
        cols = slice(n_neg, d) if positive else slice(0, n_neg)
        Z = Zd[:, cols]
    lam = w[cols]
    if info is not None:
        info["stein"] = used_stein
        info["cluster_share"] = cluster_share(lam, onenorm, d)
    k = lam.size
    V = np.zeros((d, k), dtype=M.dtype, order="F")
    if k == 0:
        return lam, V, positive, n_neg
    V[:] = Z
    if d > 1:
        # Q = H(1) ... H(d-1), the reflector v_i stored below the subdiagonal in column i of c: that
        # is the QR-form product of c[1:, :d-1] acting on rows 1..d-1 (what ormtr does for uplo L)
        res = ormqr("L", "N", np.asfortranarray(c[1:, : d - 1]), tau, V[1:, :], lwork=max(1, 64 * k),
                    overwrite_c=1)
        if res[-1] != 0:
            raise np.linalg.LinAlgError(f"ormqr failed (info {res[-1]})")
        V[1:, :] = res[0]
    return lam, V, positive, n_neg


def _side_eigh_device(M: np.ndarray, device: str, info: dict[str, Any] | None
                      ) -> tuple[np.ndarray, np.ndarray, bool, int]:
    """:func:`side_eigh` on a PyTorch device (its ``device`` option): every eigenvalue there, the smaller
    side's eigenvectors back."""
    d = M.shape[0]
    side: dict[str, Any] = {}

    def smaller(w: np.ndarray) -> slice:
        n_neg = int(np.searchsorted(w, 0.0))
        side["n_neg"], side["positive"] = n_neg, n_neg > d - n_neg
        return slice(n_neg, d) if side["positive"] else slice(0, n_neg)

    w, V = device_eigh(M, device, smaller)
    lam = w[smaller(w)]
    if info is not None:
        info["stein"] = False
        info["cluster_share"] = cluster_share(lam, float(np.max(np.abs(w))) if w.size else 0.0, d)
    return lam, V, bool(side["positive"]), int(side["n_neg"])


def mrrr_share_limit(d: int, single: bool) -> float:
    r"""Largest share :math:`k/d` of the spectrum for which MRRR on ``k`` eigenpairs (``syevr``,
    ``subset_by_index``) beats :func:`side_eigh`, one BLAS thread.

    Both start with the same tridiagonal reduction; MRRR then forms only ``k`` eigenvectors of the
    tridiagonal at a higher cost per vector than divide and conquer on all of them. Measured on the
    dev box (random symmetric matrices, ``benchmarks/results_sdp/proj4/experiments/partial_evd.py``,
    output ``partial_evd.txt`` beside it): break-even at :math:`k/d` about 0.14 (order 496) and 0.19
    (order 1,326) in double precision, 0.17 and 0.22 in single precision; interpolated linearly in
    :math:`\log d` and clipped.

    >>> mrrr_share_limit(496, False) < mrrr_share_limit(1326, False) < mrrr_share_limit(1326, True)
    True
    """
    lo, hi = (0.17, 0.22) if single else (0.14, 0.19)
    t = float(np.clip(np.log(max(d, 2) / 496.0) / np.log(1326.0 / 496.0), 0.0, 1.0))
    return lo + t * (hi - lo)


def side_gram(V: np.ndarray, lam: np.ndarray, M: np.ndarray | None = None) -> np.ndarray:
    r"""Lower triangle of :math:`\sum_i \lambda_i v_i v_i^\top` (``M`` None, all :math:`\lambda_i \ge 0`)
    or of :math:`M - \sum_i \lambda_i v_i v_i^\top` (all :math:`\lambda_i \le 0`): one side of the
    spectrum has one sign, so the sum is the Gram matrix :math:`WW^\top` of
    :math:`W = V\operatorname{diag}(|\lambda|^{1/2})`, one BLAS ``syrk`` (half the flops of the
    ``gemm`` :math:`(V\Lambda)V^\top`, which fills both triangles). Only the lower triangle
    (:math:`i \ge j`, where the scaled svec of SCS reads) of the result is meaningful. ``M`` is a
    C-ordered float64 buffer of which only the upper triangle is read and overwritten (the lower
    triangle of its Fortran view ``M.T``, which ``syrk`` updates and returns).

    >>> V = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 2)))[0]
    >>> G = side_gram(V, np.array([2.0, 3.0]))
    >>> bool(np.allclose(np.tril(G), np.tril((V * [2.0, 3.0]) @ V.T)))
    True
    """
    W = np.asarray(V, dtype=np.float64) * np.sqrt(np.abs(np.asarray(lam, dtype=np.float64)))
    if M is None:
        return sla.blas.dsyrk(1.0, W, lower=1)
    # M.T is M in Fortran order: its lower triangle (M's upper one) is updated in place
    return sla.blas.dsyrk(1.0, W, beta=1.0, c=M.T, lower=1, overwrite_c=1)


__all__ = ["side_eigh", "side_gram", "mrrr_share_limit", "cluster_share", "STEIN_CLUSTER_LIMIT"]

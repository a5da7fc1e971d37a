"""Idea 3 of proj5: the smaller side's eigenvectors of the tridiagonal without all of them.

On moment blocks of real ``lowrank`` iterates (``capture_iterates.py``), after ``sytrd`` (with the
queried block workspace, as ``side_eigh``): ``stevd`` (all d eigenpairs, divide and conquer; what
``side_eigh`` runs) against (a) ``sterf`` (eigenvalues) + ``stein`` (inverse iteration) on the k
eigenvalues of the smaller side and (b) ``stemr`` (MRRR) on that index range; accuracy of the
one-sided sum against ``stevd``'s (max entry difference), orthogonality of the k vectors; and the
stage split of ``side_eigh`` (``sytrd``, ``stevd``, ``ormqr`` on the k vectors). One BLAS thread,
CPU time, median of 3.

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python tridiag_side.py /tmp/iter_*.npz
"""
import sys
import time

import numpy as np
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits

from sosproj.sdp.backends.side_spectrum import _sytrd_lwork, side_eigh


def med(f, rep=3):
    ts, out = [], None
    for _ in range(rep):
        t = time.process_time()
        out = f()
        ts.append(time.process_time() - t)
    return 1e3 * float(np.median(ts)), out


def one(M: np.ndarray, label: str) -> None:
    d = M.shape[0]
    lw = _sytrd_lwork(d, False)
    t_se, _ = med(lambda: side_eigh(M))
    t_tr, (c, dg, off, tau, _) = med(lambda: lapack.dsytrd(M.T, lower=1, lwork=lw))
    t_evd, (w, Z, _) = med(lambda: lapack.dstevd(dg, off, compute_v=1))
    neg = int(np.searchsorted(w, 0.0))
    pos = neg > d - neg
    ref, lref = (Z[:, neg:], w[neg:]) if pos else (Z[:, :neg], w[:neg])
    k = lref.size
    cf = np.asfortranarray(c[1:, : d - 1])
    V = np.asfortranarray(ref[1:, :])
    t_orm, _ = med(lambda: lapack.dormqr("L", "N", cf, tau, V.copy(order="F"), lwork=64 * k))
    P_ref = (ref * lref) @ ref.T
    # (a) sterf + stein (one unreduced block: iblock 1, isplit [d])
    t_rf, (vals, _) = med(lambda: lapack.dsterf(dg, off))
    vals = np.sort(vals)
    nv = int(np.searchsorted(vals, 0.0))
    sel = vals[nv:] if pos else vals[:nv]
    one_blk = np.ones(d, dtype=np.int32)
    isp = np.zeros(d, dtype=np.int32)
    isp[0] = d
    t_st, (Zs, info_s) = med(lambda: lapack.dstein(dg, off, sel, one_blk, isp))
    Zs = Zs[:, : sel.size]
    err_s = float(np.abs((Zs * sel) @ Zs.T - P_ref).max())
    orth_s = float(np.abs(Zs.T @ Zs - np.eye(sel.size)).max())
    # (b) stemr on the index range of the smaller side
    il, iu = (neg + 1, d) if pos else (1, neg)
    e = np.append(off, 0.0)
    lwm, liwm, _ = lapack.dstemr_lwork(dg, e, 2, 0.0, 0.0, il, iu)
    t_mr, (m, wm, Zm, info_m) = med(lambda: lapack.dstemr(dg, e.copy(), 2, 0.0, 0.0, il, iu,
                                                           lwork=int(lwm), liwork=int(liwm)))
    Zm, wm = Zm[:, :m], wm[:m]
    err_m = float(np.abs((Zm * wm) @ Zm.T - P_ref).max())
    orth_m = float(np.abs(Zm.T @ Zm - np.eye(m)).max())
    nrm = float(np.abs(w).max())
    clus = int((np.abs(w) < 1e-3 * nrm).sum())
    print(f"{label}: order {d}, smaller side k = {k} ({'positive' if pos else 'negative'}), "
          f"{clus} eigenvalues within 1e-3 ||X|| of 0", flush=True)
    print(f"  side_eigh {t_se:.1f} ms = sytrd {t_tr:.1f} + stevd {t_evd:.1f} + ormqr(k) {t_orm:.1f} (+ copies)",
          flush=True)
    print(f"  (a) sterf {t_rf:.1f} + stein {t_st:.1f} = {t_rf + t_st:.1f} ms (info {info_s}, orth {orth_s:.1e}, "
          f"|dP| {err_s:.1e} ||X|| {nrm:.1e}) against stevd {t_evd:.1f}", flush=True)
    print(f"  (b) stemr(k vectors) {t_mr:.1f} ms (info {info_m}, orth {orth_m:.1e}, |dP| {err_m:.1e}) "
          f"against stevd {t_evd:.1f}", flush=True)


def main() -> None:
    with threadpool_limits(1):
        for f in sys.argv[1:]:
            z = np.load(f)
            for key in sorted(z.files, key=int):
                one(z[key], f"{f} call {key}")


if __name__ == "__main__":
    main()

# ruff: noqa: B023  (the timed lambdas run inside the loop iteration that defines them)
"""Idea 1 of proj5: is a PSD projection from matrix products (polar decomposition / sign function)
cheaper than ``side_eigh`` at the orders of issue 15?  One BLAS thread, CPU time, median of 5.

Part 1 (random symmetric matrices, half the spectrum positive): ``syevd`` (``np.linalg.eigh``),
``side_eigh`` (the ``lowrank`` backend's decomposition), its stages (``sytrd`` with the queried
block workspace, ``stevd``, ``ormqr`` on d/2 vectors) and the BLAS-3 pieces a sign-function
projection is built of: ``gemm`` (d x d x d), ``syrk``, Cholesky, ``trsm``; one Newton-Schulz step
``X <- X (3I - X^2) / 2`` is one ``syrk`` + one ``gemm``; one symmetric QDWH step is one ``syrk``
(``X^2``), one Cholesky of ``I + c X^2`` and two ``trsm``; the rotation into a previous eigenbasis
``Q' X Q`` (the warm start) is two ``gemm``.

Part 2 (``--iterates FILE.npz``, moment blocks saved by ``capture_iterates.py``): how many
Newton-Schulz steps a cold start needs on the iterate's actual spectrum for the projection to be
within ``1e-9 ||X||_2`` (the scalar recurrence p <- p (3 - p^2) / 2 on lambda / ||X||_2; the error
of eigenvalue lambda is |lambda| |sign(lambda) - p| / 2).

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python polar_cost.py 496 1326 \
           [--iterates /tmp/iter_dp50.npz]
"""
import argparse

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits
from tridiag_side import med as _med

from sosproj.sdp.backends.side_spectrum import _sytrd_lwork, side_eigh


def med(f, rep=5):
    """Median CPU milliseconds of ``rep`` calls (tridiag_side.med without the output)."""
    return _med(f, rep)[0]


def pieces(d: int, rng: np.random.Generator) -> None:
    for dt in (np.float64, np.float32):
        single = dt == np.float32
        A = rng.standard_normal((d, d)).astype(dt)
        A = np.ascontiguousarray(A + A.T)
        B = rng.standard_normal((d, d)).astype(dt)
        pre = "s" if single else "d"
        gemm, syrk, trsm = (getattr(sla.blas, pre + f) for f in ("gemm", "syrk", "trsm"))
        sytrd, stevd, ormqr = (getattr(lapack, pre + f) for f in ("sytrd", "stevd", "ormqr"))
        S = syrk(1.0, A) + np.eye(d, dtype=dt)
        L = np.linalg.cholesky(S)
        lw = _sytrd_lwork(d, single)
        c, dg, off, tau, _ = sytrd(A.T, lower=1, lwork=lw)
        V = np.asfortranarray(rng.standard_normal((d - 1, d // 2)).astype(dt))
        cf = np.asfortranarray(c[1:, : d - 1])
        r = {
            "syevd": med(lambda: np.linalg.eigh(A)),
            "side_eigh": med(lambda: side_eigh(A)),
            "sytrd": med(lambda: sytrd(A.T, lower=1, lwork=lw)),
            "stevd": med(lambda: stevd(dg, off, compute_v=1)),
            "ormqr(d/2)": med(lambda: ormqr("L", "N", cf, tau, V.copy(order="F"), lwork=64 * d)),
            "gemm": med(lambda: gemm(1.0, A, B)),
            "syrk": med(lambda: syrk(1.0, A)),
            "chol": med(lambda: sla.cholesky(S, lower=True, check_finite=False)),
            "trsm": med(lambda: trsm(1.0, L, B, lower=1)),
        }
        r["NS step"] = r["syrk"] + r["gemm"]
        r["QDWH step"] = r["syrk"] + r["chol"] + 2 * r["trsm"]
        r["rotation"] = 2 * r["gemm"]
        se = r["side_eigh"]
        print(f"d {d} {np.dtype(dt).name} (ms): " + "  ".join(f"{k} {v:.1f}" for k, v in r.items()), flush=True)
        print(f"d {d} {np.dtype(dt).name} (/ side_eigh): NS step {r['NS step'] / se:.2f}  QDWH step "
              f"{r['QDWH step'] / se:.2f}  rotation {r['rotation'] / se:.2f}  gemm {r['gemm'] / se:.2f}",
              flush=True)


def ns_steps(lam: np.ndarray, rtol: float = 1e-9, cap: int = 200) -> int:
    nrm = float(np.abs(lam).max())
    x = lam / nrm
    p = x.copy()
    for k in range(1, cap + 1):
        p = p * (3.0 - p * p) / 2.0
        if float(np.max(np.abs(x) * np.abs(np.sign(x) - p))) / 2.0 <= rtol:
            return k
    return cap


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("orders", type=int, nargs="*", default=[496, 1326])
    ap.add_argument("--iterates", nargs="*", default=[])
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    with threadpool_limits(1):
        for d in a.orders:
            pieces(d, rng)
        for f in a.iterates:
            z = np.load(f)
            for key in z.files:
                lam = np.linalg.eigvalsh(z[key])
                nrm = np.abs(lam).max()
                small = np.abs(lam)[np.abs(lam) > 1e-9 * nrm].min() / nrm
                print(f"{f} iteration {key}: order {lam.size}, smallest |lambda| above 1e-9 ||X||: "
                      f"{small:.1e} ||X||; Newton-Schulz steps (cold start) to 1e-9 ||X||: {ns_steps(lam)}",
                      flush=True)


if __name__ == "__main__":
    main()

# ruff: noqa: B023  (the timed lambdas run inside the loop iteration that defines them)
"""Break-even of inverse iteration (``sterf`` + ``stein`` on the k eigenvalues of the smaller side)
against divide and conquer (``stevd``, all d eigenpairs) on the tridiagonal of ``sytrd``, by the
share k/d: random symmetric matrices shifted so that k/d of the spectrum is negative, one BLAS
thread, CPU time, median of 3. (Random spectra have no clusters; the real iterates of
``tridiag_side.py`` are the check.)

Usage: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python stein_share.py 496 1326
"""
import sys

import numpy as np
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits
from tridiag_side import med as _med


def med(f, rep=3):
    """Median CPU milliseconds of ``rep`` calls (tridiag_side.med without the output)."""
    return _med(f, rep)[0]


def main() -> None:
    rng = np.random.default_rng(1)
    with threadpool_limits(1):
        for d in map(int, sys.argv[1:]):
            A = rng.standard_normal((d, d))
            A = A + A.T
            lam = np.linalg.eigvalsh(A)
            for single in (False, True):
                p = "s" if single else "d"
                sytrd, stevd, sterf, stein = (getattr(lapack, p + f) for f in ("sytrd", "stevd", "sterf", "stein"))
                row = []
                for share in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5):
                    k = int(share * d)
                    B = (A - 0.5 * (lam[k - 1] + lam[k]) * np.eye(d)).astype(np.float32 if single else np.float64)
                    _, dg, off, _, _ = sytrd(B.T, lower=1, lwork=64 * d)
                    vals = np.sort(sterf(dg, off)[0])[:k]
                    one = np.ones(d, dtype=np.int32)
                    isp = np.zeros(d, dtype=np.int32)
                    isp[0] = d
                    t_evd = med(lambda: stevd(dg, off, compute_v=1))
                    t_st = med(lambda: (sterf(dg, off), stein(dg, off, vals, one, isp)))
                    row.append(f"{share:.2f}: {t_st / t_evd:.2f}")
                print(f"d {d} {'single' if single else 'double'}: (sterf + stein) / stevd by k/d  " + "  ".join(row),
                      flush=True)


if __name__ == "__main__":
    main()

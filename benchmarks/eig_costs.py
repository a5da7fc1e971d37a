"""CPU seconds of LAPACK's symmetric eigensolvers on one BLAS thread: divide and conquer on the whole
spectrum (``syevd``) against MRRR on the top ``k`` eigenpairs (``syevr``, ``subset_by_index``), in
double and single precision, for the orders of the unit-ball moment matrices at n = 30 and 50.
The break-even shares ``k/d`` set the former ``side_share_limit`` of the lowrank backend (session proj3);
since proj4 MRRR is compared with :func:`sosproj.sdp.backends.side_spectrum.side_eigh` instead
(``benchmarks/results_sdp/proj4/experiments/partial_evd.py``, ``mrrr_share_limit``).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/eig_costs.py > benchmarks/results_sdp/proj3/eig_costs.txt
"""

from __future__ import annotations

import os
import time

import numpy as np
import scipy.linalg as sla


def cpu(fn, repeat: int = 3) -> float:
    best = np.inf
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"# load {os.getloadavg()} OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; "
          "min CPU seconds of 3 runs, random symmetric matrices")
    for d in (496, 1326):
        A = rng.standard_normal((d, d))
        A = (A + A.T) / 2
        for dtype in (np.float64, np.float32):
            M = A.astype(dtype)
            full = cpu(lambda M=M: sla.eigh(M, driver="evd", check_finite=False))
            row = [f"d={d} {np.dtype(dtype).name} syevd {full:.4f}"]
            for share in (0.1, 0.2, 0.3, 0.4, 0.5):
                k = int(share * d)
                t = cpu(lambda M=M, k=k, d=d: sla.eigh(M, subset_by_index=[d - k, d - 1], driver="evr",
                                                  check_finite=False))
                row.append(f"k/d={share:.1f}: {t:.4f} ({t / full:.2f})")
            print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()

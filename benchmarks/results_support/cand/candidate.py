"""Rank-one candidate of ``rankone_newton``: value, KKT residual and CPU seconds of ``TensorRounding.best_point``.

Methods, on the symmetrized Gaussian tensors of ``benchmarks/support_scale.py`` (``default_rng([2026, n])``,
``W = rng.standard_normal((n, n, n))``, tensors 0, 1, 2 of each n), all with 128 starts and ``rng=0``:

* ``old``: main at d221599 (``newton_starts=0``): 100 shifted power iterations, Newton on the 4 best;
* ``old1000``: the same with 1,000 power iterations (the reference of the lead's support9 probe);
* ``new``: ``newton_starts=32``: 100 power iterations, then the 32 best starts converged by the batched
  Riemannian trust-region Newton method (KKT residual <= 1e-11); the default below n = 64;
* ``new_all``: the same on all 128 starts (``newton_starts=128``); the default from n = 64 on.

Run (one BLAS thread): OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD \
    python benchmarks/results_support/cand/candidate.py 30 64 100 > benchmarks/results_support/cand/candidate.txt
"""
import os
import sys
import time

import numpy as np

from sosproj.certificates.checks.injective_norm import symmetrize_tensor
from sosproj.sdp.lowrank_support import TensorRounding


def rounding(k: int) -> TensorRounding:
    tr = object.__new__(TensorRounding)
    tr.k = k
    tr.last_info = {}
    return tr


def kkt(T: np.ndarray, z: np.ndarray) -> float:
    G = np.einsum("ijk,j,k->i", T, z, z)
    lam = float(z @ G)
    return float(np.linalg.norm(G - lam * z)) / max(1.0, abs(lam))


METHODS = {"old": {"newton_starts": 0}, "old1000": {"newton_starts": 0, "iters": 1000},
           "new": {"newton_starts": 32}, "new_all": {"newton_starts": 128}}

if __name__ == "__main__":
    ns = [int(a) for a in sys.argv[1:]] or [30, 64, 100]
    threads = os.environ.get("OPENBLAS_NUM_THREADS")
    print(f"# candidate.py, load {os.getloadavg()[0]:.2f}, OPENBLAS_NUM_THREADS={threads}")
    for n in ns:
        rng = np.random.default_rng([2026, n])
        for t in range(3):
            T = symmetrize_tensor(rng.standard_normal((n, n, n)))
            tr = rounding(3)
            out = []
            for name, kw in METHODS.items():
                c0 = time.process_time()
                v, z = tr.best_point_tensor(T, **kw)
                sec = time.process_time() - c0
                info = tr.last_info
                extra = (f" steps {info['newton_steps']} conv {info['converged']}/{info['starts']}" if info else "")
                out.append(f"{name} {v:.6f} kkt {kkt(T, z):.1e} {sec:.2f}s{extra}")
            print(f"n={n} t={t} " + " | ".join(out) + f" | load {os.getloadavg()[0]:.2f}", flush=True)

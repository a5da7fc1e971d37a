"""Micro-benchmark: the face Jacobian product at order 2,145 with three negative eigenvalues (-2,521, -0.3, -0.05),
the dense formula (``to_matrix`` / ``H @ Q`` / dense ``P`` / ``to_svec``, main's path) against the packed one
(``dspmv`` / ``dspr2``, :meth:`PartialPsdBlock._jacobian_packed`); CPU ms per product.

Usage: OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=$PWD \
    python benchmarks/results_support/n64_28/micro_jacobian.py
"""
import time

import numpy as np
import scipy.linalg as sla

from sosproj.sdp.partial_newton import PartialPsdBlock

d = 2145
rng = np.random.default_rng(0)
B = rng.standard_normal((d, d)) / np.sqrt(d)
M = B @ B.T
Qr, _ = np.linalg.qr(rng.standard_normal((d, 3)))
M -= (Qr * np.array([2521.0, 0.3, 0.05])) @ Qr.T
blk = PartialPsdBlock(d)
blk.decompose(blk.to_svec(M))
print("negative eigenvalues", blk.lam_n)
h = rng.standard_normal(blk.proj.lower.size)


def dense(h: np.ndarray) -> np.ndarray:
    """main's product (the dense formula of the module docs)."""
    H = blk.to_matrix(h)
    Qn = blk.Qn
    HQ = H @ Qn
    G = Qn.T @ HQ
    R = HQ - Qn @ G
    C = np.empty_like(R)
    for j, (_, c) in enumerate(blk._resolvents()):
        C[:, j] = sla.cho_solve((c, True), R[:, j], check_finite=False)
    C -= Qn @ (Qn.T @ C)
    P = (0.5 * (Qn @ G) + C * (-blk.lam_n)) @ Qn.T
    P += P.T
    return h - blk.to_svec(P)


a, b = dense(h), blk.jacobian(h)
print(f"max difference {np.abs(a - b).max():.2e} (entries up to {np.abs(a).max():.2f})")
for _ in range(3):
    c0 = time.process_time()
    for _ in range(10):
        dense(h)
    c1 = time.process_time()
    for _ in range(10):
        blk.jacobian(h)
    c2 = time.process_time()
    print(f"dense {(c1 - c0) * 100:.1f} ms  packed {(c2 - c1) * 100:.1f} ms")

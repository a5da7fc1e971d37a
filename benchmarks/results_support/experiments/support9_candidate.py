"""Probe (lead, 2026-11-27): is the rank-one candidate's shifted power method converged at n = 100?

The batched SS-HOPM of ``TensorRounding.best_point`` (shift = spectral norm of the flattening, 100 iterations,
128 starts; here without its Newton polish of the 4 best) against the same with 1,000 iterations and against the
check's plain power method (20 starts, 100 iterations, no shift) on Gaussian symmetric tensors.
Run: OMP_NUM_THREADS=1 python benchmarks/results_support/experiments/support9_candidate.py
Output: support9_candidate.txt
"""
import time

import numpy as np

from sosproj.certificates.checks.injective_norm import power_method_value, symmetrize_tensor


def sshopm(T, starts=128, iters=100, seed=0):
    n = T.shape[0]
    g = np.random.default_rng(seed)
    Z = g.standard_normal((n, starts))
    Z /= np.linalg.norm(Z, axis=0)
    shift = float(np.linalg.norm(T.reshape(n, -1), 2))
    for _ in range(iters):
        G = np.einsum("ijk,js,ks->is", T, Z, Z) + shift * Z
        Z = G / np.linalg.norm(G, axis=0)
    return np.einsum("ijk,is,js,ks->s", T, Z, Z, Z).max()


for n in (64, 100):
    rng = np.random.default_rng(n)
    for t in range(2):
        T = symmetrize_tensor(rng.standard_normal((n, n, n)))
        t0 = time.process_time()
        a = sshopm(T)
        t1 = time.process_time()
        a2 = sshopm(T, iters=1000)
        t2 = time.process_time()
        b = power_method_value(T, 20, np.random.default_rng(1))
        t3 = time.process_time()
        print(n, t, f"sshopm100 {a:.4f} ({t1 - t0:.1f}s) sshopm1000 {a2:.4f} ({t2 - t1:.1f}s) "
              f"plain20 {b:.4f} ({t3 - t2:.1f}s)", flush=True)

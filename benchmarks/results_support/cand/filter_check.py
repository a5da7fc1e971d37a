"""Does converging only the 32 best starts (after the power phase) lose against converging all 128?

Symmetrized Gaussian tensors ``default_rng([7, n, i])``, i < 10, n in 30, 40, 48, 64 (and 3 at n = 100);
``best_point_tensor`` with ``newton_starts`` 32 and 128 (and ``newton_starts=0``, the old method).
Run: OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/cand/filter_check.py
"""
import os
import time

import numpy as np
from candidate import rounding

from sosproj.certificates.checks.injective_norm import symmetrize_tensor

print(f"# filter_check.py load {os.getloadavg()[0]:.2f}")
tr = rounding(3)
for n, count in ((30, 10), (40, 10), (48, 10), (64, 6), (100, 3)):
    lost32, lost_old, sec = 0, 0, {0: 0.0, 32: 0.0, 128: 0.0}
    worst = 0.0
    for i in range(count):
        T = symmetrize_tensor(np.random.default_rng([7, n, i]).standard_normal((n, n, n)))
        v = {}
        for m in (0, 32, 128):
            c0 = time.process_time()
            v[m] = tr.best_point_tensor(T, newton_starts=m)[0]
            sec[m] += time.process_time() - c0
        lost32 += v[32] < v[128] - 1e-9
        lost_old += v[0] < v[128] - 1e-9
        worst = max(worst, (v[128] - v[32]) / v[128], (v[128] - v[0]) / v[128])
        if v[32] < v[128] - 1e-9 or v[0] < v[128] - 1e-9:
            print(f"  n={n} i={i} old {v[0]:.6f} new32 {v[32]:.6f} new128 {v[128]:.6f}", flush=True)
    print(f"n={n}: {count} tensors; below new128: old {lost_old}, new32 {lost32}; worst relative shortfall "
          f"{worst:.2e}; mean CPU s old {sec[0] / count:.3f} new32 {sec[32] / count:.3f} new128 {sec[128] / count:.3f}"
          f" | load {os.getloadavg()[0]:.2f}", flush=True)

"""Cold and warm first-call cost of the compiled kernels (sosproj.data.fused_kernel) in a fresh process.

Usage: python jit_cold.py SRC  (SRC: a sosproj tree; delete SRC/sosproj/data/__pycache__/fused_kernel* first for
the cold cost). Prints the CPU seconds of `import numba`, of the first call (compile, or load from numba's cache)
and of a second call, on a tiny layout."""
import itertools
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
c0 = time.process_time()
import numpy as np  # noqa: E402

c1 = time.process_time()
import numba  # noqa: E402,F401

c2 = time.process_time()
from sosproj.data.residuals import ResidualLayout  # noqa: E402

lay = ResidualLayout((3, 4, 2, 5), list(itertools.combinations(range(4), 3)))
y = np.random.default_rng(0).random(lay.tab_size)
iw = lay.expand(np.ones(len(lay.residual_sets)))
c3 = time.process_time()
lay.normal_apply(y, iw, compiled=True)
lay.dual_step(y.copy(), y, np.empty_like(y), iw, 0.5, y, 0.1)
lay.normal_min(y, iw, y, y)
c4 = time.process_time()
lay.normal_apply(y, iw, compiled=True)
c5 = time.process_time()
print(f"numpy import {c1 - c0:.2f} s, numba import {c2 - c1:.2f} s, first calls (compile or cache load) "
      f"{c4 - c3:.2f} s, second call {c5 - c4:.4f} s CPU; load {os.getloadavg()[0]:.1f}")

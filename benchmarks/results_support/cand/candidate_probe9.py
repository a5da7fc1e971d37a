"""The lead's support9 probe tensors (``default_rng(100)``, two symmetrized Gaussian n = 100 tensors): the new
candidate (``best_point`` defaults) against the old one (``newton_starts=0``). The probe measured, without
the old Newton polish: 100 shifted steps 16.0291 / 15.9842, 1,000 steps 16.1725 / 16.2296, the check's
unshifted 20-start method 16.0617 / 16.1871 (``experiments/support9_candidate.txt``).
Run: OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_support/cand/candidate_probe9.py
"""
import os
import time

import numpy as np
from candidate import kkt, rounding

from sosproj.certificates.checks.injective_norm import symmetrize_tensor

rng = np.random.default_rng(100)
print(f"# candidate_probe9.py load {os.getloadavg()[0]:.2f}")
for t in range(2):
    T = symmetrize_tensor(rng.standard_normal((100, 100, 100)))
    tr = rounding(3)
    out = []
    for name, kw in (("old", {"newton_starts": 0}), ("new", {})):
        c0 = time.process_time()
        v, z = tr.best_point_tensor(T, **kw)
        out.append(f"{name} {v:.6f} kkt {kkt(T, z):.1e} {time.process_time() - c0:.2f}s")
    print(f"n=100 probe tensor {t}: " + " | ".join(out), flush=True)

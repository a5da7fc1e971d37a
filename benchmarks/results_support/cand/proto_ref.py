"""Reference values at n = 100: how good is the best local maximizer found with more work?"""
import sys
import time

import numpy as np
from proto import kkt, newton_ascent, old

from sosproj.certificates.checks.injective_norm import symmetrize_tensor

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
rng = np.random.default_rng([2026, n])
for t in range(3):
    T = symmetrize_tensor(rng.standard_normal((n, n, n)))
    out = []
    c0 = time.process_time()
    v, z = old(T, iters=1000)
    out.append(f"old1000 {v:.6f} kkt {kkt(T, z):.1e} ({time.process_time() - c0:.2f}s)")
    for S, pr in ((512, None), (512, 0.03), (2048, 0.03)):
        c0 = time.process_time()
        v, z, its, ev, nd = newton_ascent(T, starts=S, prune=pr, rng=1)
        out.append(f"newton{S}/p{pr} {v:.6f} it {its} ev {ev} ({time.process_time() - c0:.2f}s)")
    print(n, t, " | ".join(out), flush=True)

"""Scale check: synthetic binary n = 64 (planted clusters), all 3-way marginals, default release.

Usage: python benchmarks/marginals_scale.py [M] [EPS]; prints wall time, the error (L1 per marginal / m)
and the reconstruction report.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

import sosproj as sp
from sosproj.data.synthetic import planted_binary


def main() -> None:
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    eps = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    D = planted_binary(m, 64, rng=0)
    t0 = time.perf_counter()
    rel = sp.release_marginals(D, 3, epsilon=eps, delta=1e-9, rng=1)
    dt = time.perf_counter() - t0
    ds = sp.Dataset(D, sp.Domain.from_sizes([2] * 64))
    sets = list(itertools.combinations(range(64), 3))
    err = float(np.mean([np.abs(rel.table(w) - ds.marginal(w)).sum() for w in sets]) / m)
    ri = rel.info["reconstruction_info"]
    print(f"binary n=64 m={m} eps={eps:g}: release {dt:.1f}s err={err:.5f} iterations={ri.get('iterations')} "
          f"psd={ri.get('psd')} theta={ri.get('theta'):.2e} mix={rel.info['auto_mix']:.3f}", flush=True)


if __name__ == "__main__":
    main()

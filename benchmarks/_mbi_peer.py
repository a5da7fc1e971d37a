"""Private-PGM (``mbi``) peer for benchmarks/marginals_tables.py, run in a separate venv that has mbi + JAX.

Usage: ``<venv>/bin/python benchmarks/_mbi_peer.py IN.npz OUT.npz``.  IN holds ``n``, ``sets`` (tables x k),
``noisy`` (flat noisy count cells, C-order per table), ``sigma``, ``m``, ``iters``; OUT gets ``est``
(flat estimated count cells) and ``time`` (seconds).  mbi is an optional benchmark extra, never imported
by sosproj itself.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")


def main() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_compilation_cache", False)
    from mbi import Domain, LinearMeasurement
    from mbi.estimation import MirrorDescent

    data = np.load(sys.argv[1])
    n, sets, noisy, sigma, m, iters = (int(data["n"]), data["sets"], data["noisy"], float(data["sigma"]),
                                       int(data["m"]), int(data["iters"]))
    names = [f"a{i:03d}" for i in range(n)]
    dom = Domain(names, [2] * n)
    k = sets.shape[1]
    meas = []
    for j, s in enumerate(sets):
        clique = tuple(names[i] for i in s)
        meas.append(LinearMeasurement(noisy[j * 2**k:(j + 1) * 2**k], clique, stddev=sigma))
    t0 = time.perf_counter()
    model = MirrorDescent().estimate(dom, meas, known_total=float(m), iters=iters)
    est = np.concatenate([np.asarray(model.project(tuple(names[i] for i in s)).datavector(flatten=True))
                          for s in sets])
    np.savez(sys.argv[2], est=est, time=time.perf_counter() - t0)


if __name__ == "__main__":
    main()

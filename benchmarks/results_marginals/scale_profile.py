"""Where the time of one default release goes: cProfile of ``sp.release_marginals`` (all 3-way, eps 1).

Usage (one BLAS thread, as the scale runs)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/results_marginals/scale_profile.py adult \
        > benchmarks/results_marginals/scale_profile_adult.txt

``DATASET``: ``adult`` / ``nltcs`` / ``titanic`` (bundled) or ``plantedN`` (the scale script's planted data).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time

import sosproj as sp


def main() -> None:
    name = sys.argv[1]
    if name.startswith("planted"):
        sys.path.insert(0, ".")
        from benchmarks.peers.data import planted

        n = int(name[len("planted"):])
        ds = sp.Dataset(planted(n), sp.Domain.from_sizes([2] * n))
    else:
        ds = sp.load_dataset(name)
    pr = cProfile.Profile()
    t0 = time.process_time()
    pr.enable()
    sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-9, rng=0)
    pr.disable()
    print(f"{name}: cpu {time.process_time() - t0:.1f}s (profiled)")
    for key, count in (("cumulative", 35), ("tottime", 20)):
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats(key).print_stats(count)
        print(s.getvalue())


if __name__ == "__main__":
    main()

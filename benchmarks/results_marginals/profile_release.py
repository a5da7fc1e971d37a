"""cProfile of one default marginal release (all 3-way, epsilon 1, delta 1e-9, seed 0).

Run: ``PYTHONPATH=<source tree> OPENBLAS_NUM_THREADS=1 python benchmarks/results_marginals/profile_release.py
adult auto [MAX_ITER]`` (second argument: the allocation, ``auto`` or ``rp``; optional third: the
projections' iteration cap, ``project_options={"max_iter": ...}``, to profile the per-iteration cost without the whole
budget); prints the 25 costliest functions.
"""

import cProfile
import pstats
import sys
import time

import sosproj as sp

ds = sp.load_dataset(sys.argv[1])
alloc = sys.argv[2]
kw = {} if alloc == "auto" else {"allocation": alloc}
if len(sys.argv) > 3:
    kw["project_options"] = {"max_iter": int(sys.argv[3]), "on_fail": "return"}
pr = cProfile.Profile()
t0, c0 = time.perf_counter(), time.process_time()
pr.enable()
rel = sp.release_marginals(ds, 3, epsilon=1.0, delta=1e-9, rng=0, **kw)
pr.disable()
print(f"{sys.argv[1]} alloc={alloc}: wall {time.perf_counter() - t0:.1f}s cpu {time.process_time() - c0:.1f}s "
      f"(profiled) iters {rel.info['reconstruction_info'].get('iterations')}")
pstats.Stats(pr).sort_stats("tottime").print_stats(25)

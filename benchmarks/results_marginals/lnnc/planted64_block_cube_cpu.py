"""One default release of planted64 (n = 64, all 3-way, the two-block cube path) per epsilon: release CPU and
the CPU of its two steps (the block cube projection, the LNN step on the dual), process time (branch lnnc).
From the worktree root:

  PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python \
      benchmarks/results_marginals/lnnc/planted64_block_cube_cpu.py 0.3 1
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
from marginals_peers import _dataset  # noqa: E402
from peers.data import load  # noqa: E402

import sosproj as sp  # noqa: E402
import sosproj.mechanisms.marginals_pipeline as mp  # noqa: E402
import sosproj.sdp.cube_tables_admm as cta  # noqa: E402

steps = []
orig_cube, orig_proj = cta.CubeTablesProjector.solve, mp._projector


def cube(self, *a, **k):
    t = time.process_time()
    out = orig_cube(self, *a, **k)
    steps.append(("cube", time.process_time() - t, out[1].get("iterations")))
    return out


def proj(*a, **k):
    t = time.process_time()
    out = orig_proj(*a, **k)
    steps.append(("lnn", time.process_time() - t, out[1].get("iterations")))
    return out


cta.CubeTablesProjector.solve, mp._projector = cube, proj
X, names, sizes = load("planted64")
ds, _ = _dataset("planted64", X, names, sizes)
print("sosproj", sp.__file__, "m", ds.m, "n", ds.n, flush=True)
for eps in [float(e) for e in sys.argv[1:] or ["0.3", "1"]]:
    steps.clear()
    la = os.getloadavg()[0]
    t = time.process_time()
    rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=0)
    t = time.process_time() - t
    ri = rel.info["reconstruction_info"]
    print(f"eps={eps:g} release_cpu={t:.2f}s step={ri.get('binary_step')} converged={ri.get('converged')} "
          + " ".join(f"{s}: {c:.2f}s/{it}it" for s, c, it in steps)
          + f" load {la:.2f}-{os.getloadavg()[0]:.2f}", flush=True)

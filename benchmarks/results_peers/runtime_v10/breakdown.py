"""Where the nltcs default release's CPU goes (issue 14, branch cube): the first import of sosproj.mechanisms
(which the same-run harness times inside the release), the cube step's solve, and the rest of the release;
seeds 0 and 1 at epsilon 0.3 / 1 / 3 / 10, one BLAS thread. Run from the repository root with PYTHONPATH=$PWD."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "benchmarks"))

import sosproj  # noqa: E402

c0 = time.process_time()
import sosproj.mechanisms  # noqa: E402,F401

print(f"first import of sosproj.mechanisms (scipy.optimize included): {time.process_time() - c0:.3f} s CPU")
_probe = ("import time, numpy, scipy, scipy.special, scipy.linalg, scipy.sparse; c = time.process_time(); "
          "import scipy.optimize; print(round(time.process_time() - c, 3))")
_marg = subprocess.run([sys.executable, "-c", _probe], capture_output=True, text=True, check=True).stdout.strip()
print(f"of which scipy.optimize once scipy.sparse / linalg / special are loaded (fresh process): {_marg} s CPU")

from marginals_peers import _dataset  # noqa: E402
from peers.data import load  # noqa: E402

import sosproj.sdp.cube_tables_admm as cta  # noqa: E402

X, names, sizes = load("nltcs")
ds, _ = _dataset("nltcs", X, names, sizes)
spent: list[float] = []
orig = cta.CubeTablesProjector.solve


def timed(self, g, **kw):
    c = time.process_time()
    out = orig(self, g, **kw)
    spent.append(time.process_time() - c)
    return out


cta.CubeTablesProjector.solve = timed
print("eps seed | release CPU s | cube solve CPU s | rest | cube iterations, stop, certified distance")
for eps in (0.3, 1.0, 3.0, 10.0):
    for seed in (0, 1):
        spent.clear()
        c = time.process_time()
        rel = sosproj.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
        tot = time.process_time() - c
        cu = rel.info["reconstruction_info"]["cube"]
        print(f"{eps:g} {seed} | {tot:.3f} | {sum(spent):.3f} | {tot - sum(spent):.3f} | {cu['iterations']}, "
              f"{cu['stop']}, {cu['certified_distance']:.3f}", flush=True)

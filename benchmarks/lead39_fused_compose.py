"""The one-thread LNN normal map / dual step / trigger kernel of this tree against an older revision's
(``sosproj/data/fused_kernel.py`` of REV, loaded from a file), on the 3-way layouts of the bundled datasets: the
same numbers bit for bit (checked here) and the time per call (median of 30 alternating blocks, preallocated buffers,
one thread).

Usage: git show 55f0888:sosproj/data/fused_kernel.py > /tmp/old_fk.py
       OPENBLAS_NUM_THREADS=1 python benchmarks/lead39_fused_compose.py /tmp/old_fk.py
"""

from __future__ import annotations

import importlib
import itertools
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import sosproj as sp
from sosproj.data import fused_kernel as fk
from sosproj.data.residuals import ResidualLayout


def main(old_path: str) -> None:
    tmp = Path(tempfile.mkdtemp())                  # an importable module: numba's cache re-imports it by name
    shutil.copy(old_path, tmp / "old_fused_kernel.py")
    sys.path.insert(0, str(tmp))
    old = importlib.import_module("old_fused_kernel")
    kernels = {"old": old.kernels(), "new": fk.kernels()}
    for name, calls in (("adult", 5), ("titanic", 20), ("nltcs", 50)):
        ds = sp.load_dataset(name)
        lay = ResidualLayout(list(ds.domain.sizes), list(itertools.combinations(range(ds.n), 3)))
        tinfo, koff, iw_tab_pos, low, n_scratch = lay._kernel_plan()
        rng = np.random.default_rng(0)
        inv_w = lay.expand(rng.random(len(lay.residual_sets)) + 0.1)
        y0, lam, shift = rng.random(lay.tab_size), rng.random(lay.tab_size), rng.standard_normal(lay.tab_size)
        iwl, iwt = inv_w[low], inv_w[iw_tab_pos]
        for mode in (0, 1, 2):
            got = {}
            for k, K in kernels.items():
                y, out = y0.copy(), np.zeros_like(y0)
                r = K(y, iwl, tinfo, koff, iwt, 1.0, -0.3, shift, True, out, np.empty(low.size),
                      np.empty(n_scratch), mode, lam, 0.7, -np.inf)
                got[k] = (r, y, out)
            same = got["old"][0] == got["new"][0] and all(np.array_equal(a, b) for a, b in
                                                          zip(got["old"][1:], got["new"][1:]))
            u, sc, out, y = np.empty(low.size), np.empty(n_scratch), np.empty_like(y0), y0.copy()
            times: dict[str, list[float]] = {"old": [], "new": []}
            for rep in range(30):
                for k in (("old", "new") if rep % 2 == 0 else ("new", "old")):
                    y[:] = y0
                    t0 = time.perf_counter()
                    for _ in range(calls):
                        kernels[k](y, iwl, tinfo, koff, iwt, 1.0, -0.3, shift, True, out, u, sc, mode, lam, 0.7,
                                   -np.inf)
                    times[k].append((time.perf_counter() - t0) / calls)
            o, n = float(np.median(times["old"])), float(np.median(times["new"]))
            print(f"{name:8s} cells {lay.tab_size:>9,d} mode {mode}: bit for bit {same}; old {o * 1e3:.3f} ms, "
                  f"new {n * 1e3:.3f} ms per call, new / old {n / o:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])

"""scan31: a default adult release (all 3-way, delta 1e-9) by NEW and by main, each in its own process
(PYTHONPATH = the snapshot): are the released tables bit for bit equal, and the dual projections' iterations? Also
the time inside the trigger's scan (``ResidualLayout.normal_min``, wrapped by a timer: calls, total ms, ms per call)
of each release, so the per-check cost is compared in the same run. One BLAS thread.
Usage: python tables_identical.py NEW_SRC BASE_SRC OUT.txt EPS:SEED ..."""
import json
import os
import subprocess
import sys

import numpy as np

CHILD = r"""
import json, sys, time, numpy as np, sosproj as sp
from sosproj.data.residuals import ResidualLayout
eps, seed, out = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
orig = ResidualLayout.normal_min
acc = {"calls": 0, "s": 0.0, "hits": 0}
def timed(self, *a, **k):
    t = time.perf_counter()
    r = orig(self, *a, **k)
    acc["s"] += time.perf_counter() - t
    acc["calls"] += 1
    v = r[0] if isinstance(r, tuple) else r
    b = k.get("below")
    acc["hits"] += int(b is not None and v < b)
    return r
ResidualLayout.normal_min = timed
ds = sp.load_dataset("adult")
t0 = time.process_time()
rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
cpu = time.process_time() - t0
tabs = rel.tables()
keys = sorted(tabs)
est = np.concatenate([np.asarray(tabs[k], float).ravel() for k in keys])
np.save(out, est)
ri = rel.info.get("reconstruction_info") or {}
its = {k: v.get("iterations") for k, v in ri.items() if isinstance(v, dict) and "iterations" in v}
print(json.dumps({"file": sp.__file__, "cpu": cpu, "its": its, **acc}))
"""


def run(src, eps, seed, out):
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    p = subprocess.run([sys.executable, "-c", CHILD, str(eps), str(seed), out], env=env, capture_output=True,
                       text=True, check=True, cwd="/tmp")
    return json.loads(p.stdout.strip().splitlines()[-1])


new_src, base_src, out_txt = sys.argv[1:4]
with open(out_txt, "a") as fh:
    for cell in sys.argv[4:]:
        eps, seed = cell.split(":")
        a = run(new_src, eps, seed, "/tmp/scan31_tab_new.npy")
        b = run(base_src, eps, seed, "/tmp/scan31_tab_base.npy")
        ta, tb = np.load("/tmp/scan31_tab_new.npy"), np.load("/tmp/scan31_tab_base.npy")
        same = bool(np.array_equal(ta, tb))
        line = (f"eps {eps} seed {seed}: tables bit-identical {same} ({ta.size} cells, max |diff| "
                f"{float(np.abs(ta - tb).max()):.3g}); projection iterations {a['its']} / {b['its']}; trigger scans "
                f"{a['calls']} / {b['calls']} calls ({a['hits']} / {b['hits']} failing), {1e3 * a['s']:.1f} / "
                f"{1e3 * b['s']:.1f} ms in normal_min ({1e3 * a['s'] / max(a['calls'], 1):.2f} / "
                f"{1e3 * b['s'] / max(b['calls'], 1):.2f} ms per call); release cpu {a['cpu']:.2f} / {b['cpu']:.2f} s "
                f"(NEW / main); load {os.getloadavg()[0]:.1f}; files {a['file']} / {b['file']}")
        print(line, flush=True)
        fh.write(line + "\n")

"""adult31: the released tables of NEW against main's, cell by cell (max |difference| in counts, L1 ratio to the true
tables, theta and gap of the extrapolation's projection). Each release runs in its own process (PYTHONPATH = the
snapshot); usage: python tables_diff.py NEW_SRC BASE_SRC OUT.txt EPS:SEED ..."""
import json
import os
import subprocess
import sys

import numpy as np

CHILD = r"""
import json, sys, time, numpy as np, sosproj as sp
eps, seed, out = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ds = sp.load_dataset("adult")
rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
tabs = rel.tables()
keys = sorted(tabs)
est = np.concatenate([np.asarray(tabs[k], float).ravel() for k in keys])
true = np.concatenate([np.asarray(ds.marginal(k), float).ravel() for k in keys])
np.save(out, est)
ri = rel.info.get("reconstruction_info") or {}
ep = ri.get("extrapolation_projection") or {}
print(json.dumps({"file": sp.__file__, "l1": float(np.abs(est - true).sum()), "m": int(ds.m),
                  "converged": ri.get("converged"), "ex_iterations": ep.get("iterations"), "ex_theta": ep.get("theta"),
                  "ex_gap": ep.get("duality_gap"), "ex_objective": ep.get("objective")}))
"""


def run(src, eps, seed, out):
    env = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    p = subprocess.run([sys.executable, "-c", CHILD, str(eps), str(seed), out], env=env, capture_output=True,
                       text=True, check=True, cwd="/tmp")
    return json.loads(p.stdout.strip().splitlines()[-1])


new_src, base_src, out_txt = sys.argv[1:4]
with open(out_txt, "a") as fh:
    for cell in sys.argv[4:]:
        eps, seed = cell.split(":")
        a = run(new_src, eps, seed, "/tmp/adult31_tab_new.npy")
        b = run(base_src, eps, seed, "/tmp/adult31_tab_base.npy")
        ta, tb = np.load("/tmp/adult31_tab_new.npy"), np.load("/tmp/adult31_tab_base.npy")
        d = np.abs(ta - tb)
        # the certificate of each projection: 1/2 ||out - c*||^2 <= gap in the table metric (the Euclidean norm over the
        # workload cells), so ||NEW - main||_2 <= sqrt(2 gap_NEW) + sqrt(2 gap_main)
        bound = float(np.sqrt(2 * a["ex_gap"]) + np.sqrt(2 * b["ex_gap"]))
        line = (f"eps {eps} seed {seed}: L1 ratio NEW/main {a['l1'] / b['l1']:.6f} (L1/m per table-set sum "
                f"{a['l1'] / a['m']:.4f} / {b['l1'] / b['m']:.4f}), max |table diff| {d.max():.4g} counts "
                f"(m = {a['m']}; {d.max() / a['m']:.3g} m), sum |diff| / m {d.sum() / a['m']:.4g}, ||diff||_2 "
                f"{np.linalg.norm(ta - tb):.4g} <= certified {bound:.4g}; extrapolation "
                f"projection iterations {a['ex_iterations']} / {b['ex_iterations']}, theta {a['ex_theta']:.3g} / "
                f"{b['ex_theta']:.3g}, gap {a['ex_gap']:.4g} / {b['ex_gap']:.4g}; converged {a['converged']} / "
                f"{b['converged']}; load "
                f"{os.getloadavg()[0]:.1f}; files {a['file']} / {b['file']}")
        print(line, flush=True)
        fh.write(line + "\n")

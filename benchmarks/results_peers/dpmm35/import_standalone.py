"""Session 35 (lead): the first dpmm AIM run on nltcs at epsilon 1 ran standalone (before the harness had
``--peer-impl``):

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 /work/venv-dpmm/bin/python benchmarks/peers/run_dpmm.py aim \
        /work/shared/data/nltcs.csv /work/shared/data/nltcs-domain.json 1 1e-9 0 /tmp/dpmm35_aim_nltcs_1_0.npz

This scores its synthetic data exactly as ``runtime_vs_pgm.run_peer`` does and appends the row (same fields, no
same-run sosproj rows) to ``rows_aim_dpmm_standalone.jsonl``; the synthetic data are kept (compressed) in
``synth/``. Usage (repository root):
``python benchmarks/results_peers/dpmm35/import_standalone.py NPZ DATASET EPS SEED``
"""

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))
from marginals_peers import errors  # noqa: E402
from peers.data import load  # noqa: E402
from peers.residual import MarginalWorkload  # noqa: E402

npz, name, eps, seed = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
z = np.load(npz)
X, _, sizes = load(name)
wl = MarginalWorkload.all_k_way(sizes, 3)
l1, _ = errors(wl, wl.workload_answers(z["synth"]), wl.workload_answers(X), X.shape[0])
here = Path(__file__).resolve().parent
np.savez_compressed(here / "synth" / f"aim_dpmm_{name}_{eps:g}_{seed}.npz", **{k: z[k] for k in z.files})
row = {"dataset": name, "epsilon": eps, "delta": 1e-9, "seed": seed, "peer": "aim", "method": "aim",
       "peer_impl": "dpmm", "label": "standalone", "l1": l1, "wall_s": float(z["time"]), "cpu_s": float(z["cpu"]),
       "maxrss_mib": float(z["maxrss_kb"]) / 1024}
with open(here / "rows_aim_dpmm_standalone.jsonl", "a") as fh:
    fh.write(json.dumps(row) + "\n")
print(row)

"""Session 32 (lead): the default release of the sosproj at ``--src`` on titanic, one row per (epsilon, seed), with
the same error as ``benchmarks/runtime_vs_pgm.py`` (L1 per 3-way marginal / m). Run from the repository root:
``python benchmarks/results_peers/aim32/ours.py --src DIR --label L --eps 1 --seeds 0-20 --out FILE``"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

ap = argparse.ArgumentParser()
ap.add_argument("--src", required=True)
ap.add_argument("--label", required=True)
ap.add_argument("--eps", type=float, nargs="+", default=[1.0])
ap.add_argument("--seeds", default="0-20")
ap.add_argument("--out", required=True)
a = ap.parse_args()
sys.path.insert(0, str(Path(a.src).resolve()))
import sosproj as sp  # noqa: E402

assert Path(sp.__file__).resolve().is_relative_to(Path(a.src).resolve()), sp.__file__
sys.path.insert(1, str(ROOT / "benchmarks"))
sys.path.insert(1, str(ROOT))
from marginals_peers import _dataset, _tables_from_release, errors  # noqa: E402
from peers.data import load  # noqa: E402
from peers.residual import MarginalWorkload  # noqa: E402

lo, hi = (int(x) for x in a.seeds.split("-"))
X, names, sizes = load("titanic")
wl = MarginalWorkload.all_k_way(sizes, 3)
true = wl.workload_answers(X)
ds, attr_map = _dataset("titanic", X, names, sizes)
with open(a.out, "a") as f:
    for eps in a.eps:
        for seed in range(lo, hi + 1):
            rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
            l1, _ = errors(wl, _tables_from_release(rel, wl, attr_map), true, X.shape[0])
            f.write(json.dumps({"dataset": "titanic", "epsilon": eps, "seed": seed, "label": a.label, "l1": l1}) + "\n")
            print(a.label, eps, seed, round(l1, 6), flush=True)

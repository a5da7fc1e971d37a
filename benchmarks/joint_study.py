"""The exact marginal polytope against the degree-4 cube relaxation, same measurement (issue 14, session 36).

For binary data with few attributes the default reconstruction can keep a distribution over all ``2^n`` points and
project the noisy residuals onto the EXACT marginal polytope (``reconstruction="joint"``,
``marginals_pipeline._joint``) instead of the degree-4 Boolean-cube relaxation followed by local non-negativity
(the binary ``"auto"`` path before this session). Both post-process the same measurement: same seed = same
standard normals = same noisy residuals, so every ratio below is paired.

Synthetic data only for the rule (``--shapes``: ``planted_binary`` mixtures and ``sparse_binary`` baskets at
several ``n`` and ``m``); ``--dataset nltcs`` is the single evaluation run, recorded separately.
Error: mean over all 3-way marginals of L1 / m (the metric of ``benchmarks/marginals_peers.py``).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/joint_study.py --shapes planted-n16-m20k --eps 0.3 1 --seeds 0 1
       OPENBLAS_NUM_THREADS=1 python benchmarks/joint_study.py --dataset nltcs --eps 0.03 0.1 0.3 1 3 10 \
           --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

import sosproj as sp
from sosproj.data.synthetic import planted_binary, sparse_binary
from sosproj.mechanisms import marginals_pipeline as mp

#: name -> (generator, n, m, keyword arguments); the data seed is fixed per shape (1000 + index)
SHAPES = {
    "planted-n10-m2k": (planted_binary, 10, 2000, {"n_clusters": 3, "concentration": 0.5}),
    "planted-n12-m5k": (planted_binary, 12, 5000, {"n_clusters": 4, "concentration": 0.3}),
    "planted-n14-m20k": (planted_binary, 14, 20000, {"n_clusters": 5, "concentration": 0.5}),
    "planted-n16-m20k": (planted_binary, 16, 20000, {"n_clusters": 3, "concentration": 0.3}),
    "planted-n16-m50k": (planted_binary, 16, 50000, {"n_clusters": 8, "concentration": 1.0}),
    "sparse-n14-m10k": (sparse_binary, 14, 10000, {"t": 4}),
    "sparse-n16-m20k": (sparse_binary, 16, 20000, {"t": 5}),
}


def l1_error(rel, X: np.ndarray, k: int = 3) -> float:
    """Mean over all k-way marginals of ||released - true||_1 / m."""
    m, n = X.shape
    errs = []
    for W in itertools.combinations(range(n), k):
        idx = np.ravel_multi_index(tuple(X[:, a] for a in W), (2,) * k)
        true = np.bincount(idx, minlength=2 ** k).reshape((2,) * k)
        errs.append(np.abs(rel.table(W) - true).sum() / m)
    return float(np.mean(errs))


def run(X: np.ndarray, eps: float, seed: int) -> dict:
    """One paired cell: the exact polytope (``auto`` now) and the cube path (``JOINT_AUTO_MAX_N = 0``)."""
    out = {}
    saved = mp.JOINT_AUTO_MAX_N
    for name, cap in (("joint", saved), ("cube", 0)):
        mp.JOINT_AUTO_MAX_N = cap
        try:
            t = time.process_time()
            rel = sp.release_marginals(X, 3, epsilon=eps, delta=1e-9, rng=seed)
            cpu = time.process_time() - t
        finally:
            mp.JOINT_AUTO_MAX_N = saved
        info = rel.info["reconstruction_info"]
        out[name] = {"l1": l1_error(rel, X), "cpu_s": cpu, "step": info.get("binary_step"),
                     "converged": bool(info.get("converged", True)), "gap": info.get("frank_wolfe_gap")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[])
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--eps", nargs="+", type=float, required=True)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = ap.parse_args()
    data = []
    for name in args.shapes:
        gen, n, m, kw = SHAPES[name]
        X = gen(m, n, rng=1000 + list(SHAPES).index(name), **kw)
        data.append((name, np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.uint8)))
    if args.dataset:
        data.append((args.dataset, np.asarray(sp.load_dataset(args.dataset).records)))
    for name, X in data:
        for eps in args.eps:
            for seed in args.seeds:
                r = run(X, eps, seed)
                print(json.dumps({"data": name, "eps": eps, "seed": seed, **r,
                                  "ratio": r["joint"]["l1"] / r["cube"]["l1"]}), flush=True)


if __name__ == "__main__":
    main()

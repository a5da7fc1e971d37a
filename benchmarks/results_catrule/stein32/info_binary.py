"""Information only (session 32; synthetic binary shapes, never nltcs): a positive-part James-Stein factor POOLED over
all measured residual sets of one order on binary data, where every set has q = 1 and a per-set factor cannot act.

For order k with measured sets S_k (0 < sigma_A < inf), whitened norm W = sum_A ||y_A||^2 / sigma_A^2 and
Q = sum_A q_A = |S_k|, every y_A of that order becomes max(0, 1 - c (Q - 2) / W) y_A (James-Stein on the whitened
stacked vector: its noise is white, I_Q). Post-processing of the noisy residuals with the public noise scales; applied
study-side by wrapping ``marginals_pipeline.measure`` (the library has no such knob). Variants: ``main`` (the
library), ``pool2`` (order 2), ``pool23`` (orders 2 and 3). Same seed = same noisy measurement.

Usage: python benchmarks/results_catrule/stein32/info_binary.py --eps 0.1 0.3 1 3 --seeds 0 1 2 3 4 > RAW
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from catrule_study import score  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.data.synthetic import planted_binary  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

#: name -> (n, m, clusters, concentration); clusters 0: independent uniform-ish bits (Beta(2, 2) marginals)
SHAPES = {
    "b12-k3-m2k": (12, 2000, 3, 0.5),
    "b16-k4-m5k": (16, 5000, 4, 0.5),
    "b14-k2-m1k": (14, 1000, 2, 1.0),
    "b12-indep-m3k": (12, 3000, 1, 2.0),
}
_MEASURE = mp.measure


def data(name: str) -> Dataset:
    n, m, k, a = SHAPES[name]
    X = planted_binary(m, n, n_clusters=k, concentration=a, rng=32032)
    return Dataset(X.astype(np.int64), Domain.from_sizes([2] * n))


def pooled(orders: tuple[int, ...]):  # noqa: ANN201
    def measure(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        meas = _MEASURE(*args, **kwargs)
        lay, r = meas.layout, meas.residuals.copy()
        for k in orders:
            idx = [i for i, A in enumerate(lay.residual_sets) if len(A) == k and 0 < meas.sigmas[i] < np.inf]
            if len(idx) < 3:
                continue
            W = sum(float(np.sum(lay.residual(r, lay.residual_sets[i]) ** 2)) / float(meas.sigmas[i]) ** 2
                    for i in idx)
            f = max(0.0, 1.0 - (len(idx) - 2) / W) if W > 0 else 0.0
            for i in idx:
                lay.residual(r, lay.residual_sets[i])[...] *= f
        return mp.Measurement(lay, r, meas.sigmas, meas.spec, meas.allocation, meas.m_public)
    return measure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES))
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    variants = {"main": None, "pool2": (2,), "pool23": (2, 3)}
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    for name in args.shapes:
        ds = data(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            for seed in args.seeds:
                for var, orders in variants.items():
                    mp.measure = _MEASURE if orders is None else pooled(orders)
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, options={"on_fail": "return"})
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    print(f"{name} {eps:g} {var} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)
    mp.measure = _MEASURE


if __name__ == "__main__":
    main()

"""The binary measurement's allocation re-scanned for the exact-polytope reconstruction (issue 14, session 37).

Since session 36 binary data with n <= 16 attributes is reconstructed by projecting onto the EXACT marginal polytope
(``reconstruction="auto"`` -> ``marginals_pipeline._joint``), while the ``"auto"`` allocation still used the mixing
weight fitted for the Boolean-cube projection (``AUTO_MIX_CUBE``). This study scans, on SYNTHETIC binary data only
(the shapes of ``benchmarks/joint_study.py``), two public parameters of the measurement, the reconstruction always
the default one (the exact polytope):

- ``t``: the allocation's mixing weight (``release(..., _mix=t)``; 0 = ResidualPlanner, 1 = equal-noise tables);
- ``g``: a multiplier on the noise scale of the top order's residual sets (order ``k``) at the rule's ``t``; the
  allocation's shape is multiplied by ``g`` on those sets before the sensitivity is computed, so the budget is the
  same (a function of the public layout only). ``g -> inf`` (skipping order ``k``) is not in the grid: session 36
  found skipping order 3 costs 1.3-4.6x on planted mixtures (docs/bench_peers.md), and the joint reconstruction
  needs every set measured.

Every row of a (data, epsilon, seed) cell uses the same seed, hence the same standard normals: the rows are paired.
The row ``"ref"`` is the current default (its ``t`` is the shipped rule's). Error: mean over all 3-way marginals of
L1 / m (the metric of ``benchmarks/marginals_peers.py``).

``--dataset nltcs --rule TMAX,SNR0,POWER [--g G]`` is the held-out evaluation: the current default against the
candidate rule, same seeds (paired).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/mix37_study.py --shapes planted-n16-m20k --eps 0.3 --seeds 0 \
           > rows.jsonl
       OPENBLAS_NUM_THREADS=1 python benchmarks/mix37_study.py --dataset nltcs --rule 1,30,1 --eps 0.3 --seeds 0 1
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from contextlib import contextmanager

import numpy as np

import sosproj as sp
from sosproj.data.domain import as_dataset
from sosproj.mechanisms import marginals_pipeline as mp

sys.path.insert(0, "benchmarks")
from joint_study import SHAPES  # noqa: E402

T_GRID = (0.0, 0.15, 0.3, 0.5, 0.7, 1.0, 1.4)
G_GRID = (0.7, 1.4, 2.0)
K = 3
DELTA = 1e-9


@contextmanager
def top_order_scale(g: float):
    """Multiply the allocation's shape on the top-order residual sets by ``g`` (public: the layout only)."""
    if g == 1.0:
        yield
        return
    orig = mp.allocation_shape

    def shaped(layout, allocation, *, m, epsilon, mix=None):
        s = orig(layout, allocation, m=m, epsilon=epsilon, mix=mix).copy()
        kmax = max(len(A) for A in layout.residual_sets)
        top = np.array([len(A) == kmax for A in layout.residual_sets])
        s[top] *= g
        return s

    mp.allocation_shape = shaped
    try:
        yield
    finally:
        mp.allocation_shape = orig


def load(name: str) -> np.ndarray:
    if name in SHAPES:
        gen, n, m, kw = SHAPES[name]
        X = gen(m, n, rng=1000 + list(SHAPES).index(name), **kw)
        return np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=np.uint8)
    return np.asarray(sp.load_dataset(name).records)


def true_tables(X: np.ndarray) -> dict:
    out = {}
    for W in itertools.combinations(range(X.shape[1]), K):
        idx = np.ravel_multi_index(tuple(X[:, a] for a in W), (2,) * K)
        out[W] = np.bincount(idx, minlength=2 ** K).reshape((2,) * K)
    return out


def l1(rel, truth: dict, m: int) -> float:
    return float(np.mean([np.abs(rel.table(W) - T).sum() / m for W, T in truth.items()]))


def one(ds, truth, m, eps, seed, t, g) -> dict:
    with top_order_scale(g):
        c0 = time.process_time()
        rel = mp.release(ds, K, epsilon=eps, delta=DELTA, rng=seed, _mix=t)
        cpu = time.process_time() - c0
    info = rel.info
    rinfo = info["reconstruction_info"]
    return {"l1": l1(rel, truth, m), "cpu_s": round(cpu, 3), "t": info["auto_mix"], "snr": info["public_snr"],
            "solver": rinfo.get("solver"), "converged": bool(rinfo.get("converged", True))}


def rule_t(snr: float, rule: tuple[float, ...]) -> float:
    t_max, snr0, power = rule
    return t_max / (1.0 + (snr / snr0) ** power)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="*", default=[])
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--eps", nargs="+", type=float, required=True)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--t-grid", nargs="*", type=float, default=list(T_GRID))
    ap.add_argument("--g-grid", nargs="*", type=float, default=list(G_GRID))
    ap.add_argument("--rule", default=None, help="TMAX,SNR0,POWER: the candidate rule (evaluation mode)")
    ap.add_argument("--g", type=float, default=1.0, help="the candidate's top-order multiplier (evaluation mode)")
    args = ap.parse_args()
    names = list(args.shapes) + ([args.dataset] if args.dataset else [])
    data = {}
    for name in names:
        X = load(name)
        data[name] = (as_dataset(X, None), true_tables(X), X.shape[0])
    # seed-major order: every (data, epsilon) cell gets seed 0 before any gets seed 1
    for seed in args.seeds:
        for name in names:
            ds, truth, m = data[name]
            for eps in args.eps:
                ref = one(ds, truth, m, eps, seed, None, 1.0)
                print(json.dumps({"data": name, "eps": eps, "seed": seed, "kind": "ref", "g": 1.0, **ref}),
                      flush=True)
                if args.rule:
                    rows = [("new", rule_t(ref["snr"], tuple(float(x) for x in args.rule.split(","))), args.g)]
                else:
                    rows = [("t", t, 1.0) for t in args.t_grid] + [("g", None, g) for g in args.g_grid]
                for kind, t, g in rows:
                    r = one(ds, truth, m, eps, seed, t, g)
                    print(json.dumps({"data": name, "eps": eps, "seed": seed, "kind": kind, "g": g, **r}),
                          flush=True)


if __name__ == "__main__":
    main()

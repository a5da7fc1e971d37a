"""The private pair selection (``selection="pairs"``) on the evaluation datasets, run ONCE after its constants were
chosen on synthetic shapes (``select_pairs_study.py``; issue 14, session 36).

Paired with the default (``sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)``, the dpmm35 rows'
call; same seed = same standard normals of the measurement, the selection draws from its own spawned stream).
Metric: mean over all 3-way marginals of L1(true, released) / m. Per (dataset, epsilon): the geometric mean of the
per-seed ratios with a 95% t-interval on the log ratios, and the ratio of the mean error to the mean AIM error
recorded in ``benchmarks/results_peers/dpmm35/rows_aim_dpmm.jsonl`` (dpmm 0.1.9, same metric, delta, adjacency as
recorded there; its seeds are those rows').

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/select_pairs_eval.py --datasets adult titanic nltcs \\
           --eps 0.3 1 3 --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from pathlib import Path

import numpy as np
from scipy import stats

import sosproj as sp

AIM_ROWS = Path(__file__).parent / "results_peers" / "dpmm35" / "rows_aim_dpmm.jsonl"


def aim_errors() -> dict[tuple[str, float], list[float]]:
    out: dict[tuple[str, float], list[float]] = {}
    for line in AIM_ROWS.read_text().splitlines():
        r = json.loads(line)
        if r.get("method") == "aim":
            out.setdefault((r["dataset"], float(r["epsilon"])), []).append(float(r["l1"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    aim = aim_errors()
    print("dataset eps seed err_default err_pairs ratio n_pairs n_cand cpu_default cpu_pairs", flush=True)
    summary = []
    for name in args.datasets:
        ds = sp.load_dataset(name)
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}

        def err(rel, truth=truth, m=ds.m) -> float:
            return float(np.mean([np.abs(rel.table(w) - t).sum() for w, t in truth.items()]) / m)

        for eps in args.eps:
            e0s, e1s = [], []
            for seed in args.seeds:
                t0 = time.process_time()
                base = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                c0 = time.process_time() - t0
                t0 = time.process_time()
                rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed, selection="pairs")
                c1 = time.process_time() - t0
                e0, e1 = err(base), err(rel)
                e0s.append(e0)
                e1s.append(e1)
                ps = rel.info["pair_selection"]
                npairs = "-" if ps is None else len(ps["selected"])
                ncand = "-" if ps is None else len(ps["candidates"])
                print(f"{name} {eps:g} {seed} {e0:.5f} {e1:.5f} {e1 / e0:.4f} {npairs} {ncand} {c0:.2f} {c1:.2f}",
                      flush=True)
            lr = np.log(np.array(e1s) / np.array(e0s))
            k = len(lr)
            half = stats.t.ppf(0.975, k - 1) * lr.std(ddof=1) / math.sqrt(k) if k > 1 else float("nan")
            a = aim.get((name, float(eps)))
            summary.append((name, eps, k, math.exp(lr.mean()), math.exp(lr.mean() - half), math.exp(lr.mean() + half),
                            float(np.mean(e0s)), float(np.mean(e1s)), a))
    print("\nsummary: dataset eps seeds ratio [95% interval] mean_default mean_pairs | AIM: runs mean "
          "default/AIM pairs/AIM")
    for name, eps, k, g, lo, hi, m0, m1, a in summary:
        tail = "no AIM rows" if not a else (f"{len(a)} {np.mean(a):.5f} {m0 / np.mean(a):.3f} "
                                            f"{m1 / np.mean(a):.3f}")
        print(f"{name} {eps:g} {k} {g:.4f} [{lo:.4f}, {hi:.4f}] {m0:.5f} {m1:.5f} | AIM: {tail}")


if __name__ == "__main__":
    main()

"""Evaluation, ONCE, of the variant that passed the fresh set I against main on titanic / adult / nltcs (session 34,
branch oneway34). Per (dataset, epsilon) a public check (sizes, m, epsilon, delta: the noise scales and the small
1-way sets the hybrid shrinks, ``oneway_study.key``) says whether the variant changes the release; where it does
not (binary data: no skip rule) nothing is run. Elsewhere: both with the same ``rng=seed`` (the convention of the
v-rows and stein32's eval: the same noisy measurement where both measure a set), L1 per marginal / m, the paired
ratio variant / main, its geometric mean and 95% t-interval.

Usage: python benchmarks/results_catrule/oneway34/oneway_eval.py --variant A --datasets titanic adult nltcs \\
           --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 > benchmarks/results_catrule/oneway34/eval.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
import oneway_study as ow  # noqa: E402
from catrule_study import score  # noqa: E402
from peers.data import load  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    v = args.variant
    print(f"dataset eps seed err_main err_{v} ratio measured_main measured_{v} cpu_main cpu_{v}")
    for name in args.datasets:
        X, _, sizes = load(name)
        ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
        sizes = list(ds.domain.sizes)
        if all(n == 2 for n in sizes):
            print(f"# {name} m={ds.m}: binary data, no skip rule and no 1-way shrinkage: identical at every epsilon")
            continue
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            same = ow.key(sizes, ds.m, eps, v) == ow.key(sizes, ds.m, eps, "main")
            print(f"# {name} m={ds.m} eps={eps:g}: {'identical (public check)' if same else 'CHANGED'}", flush=True)
            if same:
                continue
            logs = []
            for seed in args.seeds:
                out = []
                for var in ("main", v):
                    t0 = time.process_time()
                    with ow.variant(var):
                        rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                    out.append((*score(rel, truth, ds.m), time.process_time() - t0))
                (e0, k0, c0), (e1, k1, c1) = out
                logs.append(math.log(e1 / e0))
                print(f"{name} {eps:g} {seed} {e0:.6f} {e1:.6f} {e1 / e0:.4f} {k0} {k1} {c0:.2f} {c1:.2f}", flush=True)
            g, n = float(np.mean(logs)), len(logs)
            h = stats.t.ppf(0.975, n - 1) * float(np.std(logs, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
            print(f"# {name} {eps:g}: paired ratio {v} / main {math.exp(g):.4f} [{math.exp(g - h):.4f}, "
                  f"{math.exp(g + h):.4f}] (geometric mean, 95% t-interval, n = {n})", flush=True)


if __name__ == "__main__":
    main()

"""Evaluation, ONCE, of the chosen skip bars ``T2,T3[~C]`` (``tau_study.py``) against main (``5,8``: main 8b6346f's
release bit for bit) on titanic / adult / nltcs (session 33, branch tau33).

Run only after the chosen variant passed the fresh synthetic set H. Per (dataset, epsilon) a public check (sizes,
m, epsilon, delta: the noise scales, and for ``~C`` the sets below main's bars) says whether the variant changes the
release; where it does not (binary data: no skip rule) nothing is run. Elsewhere: both with the same ``rng=seed``,
L1 per marginal / m, paired ratio variant / main, geometric mean and 95% t-interval.

Usage: python benchmarks/results_catrule/tau33/tau_eval.py --variant 4,5~1 --datasets titanic adult nltcs \\
           --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 > benchmarks/results_catrule/tau33/eval.txt
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
sys.path.insert(0, str(HERE))
import tau_study as ts  # noqa: E402
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
    base = "5,8"
    print("dataset eps seed err_main err_variant ratio measured_main measured_variant cpu_main cpu_variant")
    for name in args.datasets:
        X, _, sizes = load(name)
        ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
        sizes = list(ds.domain.sizes)
        truth = None
        for eps in args.eps:
            if all(n == 2 for n in sizes):
                print(f"# {name} m={ds.m} eps={eps:g}: binary data, no skip rule: identical")
                continue
            sig = {v: ts.sigmas_of(sizes, ds.m, eps, ts.parse(v)[0])[0] for v in (base, args.variant)}
            band = ts.band_sets(sizes, ds.m, sig[args.variant]) if ts.parse(args.variant)[1] is not None else []
            changed = not np.array_equal(sig[base], sig[args.variant]) or bool(band)
            print(f"# {name} m={ds.m} eps={eps:g}: measured 1/2/3 main {'/'.join(map(str, ts.counts(sizes, sig[base])))}"
                  f" variant {'/'.join(map(str, ts.counts(sizes, sig[args.variant])))}, sets below main's bars "
                  f"{len(band)}: {'CHANGED' if changed else 'identical'}", flush=True)
            if not changed:
                continue
            if truth is None:
                truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
            logs = []
            for seed in args.seeds:
                out = []
                for v in (base, args.variant):
                    thr, c_low = ts.parse(v)
                    mp.shrink_residuals = ts.banded(c_low) if c_low is not None else ts._ORIG
                    t0 = time.process_time()
                    try:
                        rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed, _skip=thr)
                    finally:
                        mp.shrink_residuals = ts._ORIG
                    out.append((*score(rel, truth, ds.m), time.process_time() - t0))
                (e0, k0, c0), (e1, k1, c1) = out
                logs.append(math.log(e1 / e0))
                print(f"{name} {eps:g} {seed} {e0:.6f} {e1:.6f} {e1 / e0:.4f} {k0} {k1} {c0:.2f} {c1:.2f}", flush=True)
            g, n = float(np.mean(logs)), len(logs)
            h = stats.t.ppf(0.975, n - 1) * float(np.std(logs, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
            print(f"# {name} {eps:g}: paired ratio {args.variant} / main {math.exp(g):.4f} "
                  f"[{math.exp(g - h):.4f}, {math.exp(g + h):.4f}] (geometric mean, 95% t-interval, n = {n})",
                  flush=True)


if __name__ == "__main__":
    main()

"""Evaluation, ONCE, of the bands ``RESIDUAL_SHRINK_BANDS = (B_2, B_3)`` against main (``(0, 0)``, main 640b3a4's
release bit for bit) on titanic / adult / nltcs (session 32, branch stein32).

Run only after the bands passed the fresh synthetic set F (``stein_higher.py``, ``summary_F.txt``). Per (dataset,
epsilon) a public check (sizes, m, epsilon, delta: the noise scales and set SNRs) lists the measured sets of order
>= 2 the bands shrink; where there is none (binary data: no skip rule, no shrinkage) the releases are identical and
nothing is run. Elsewhere: both, the same ``rng=seed`` (the same noisy measurement), L1 per marginal / m, paired
ratio bands / main, geometric mean and 95% t-interval.

Usage: python benchmarks/results_catrule/stein32/stein_eval.py --bands inf,inf --datasets titanic adult nltcs \\
           --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 > benchmarks/results_catrule/stein32/eval.txt
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
sys.path.insert(0, str(HERE.parent / "stein31"))
sys.path.insert(0, str(HERE))
from catrule_study import score  # noqa: E402
from peers.data import load  # noqa: E402
from pubrule_study import public_sigmas  # noqa: E402
from stein_higher import acting, bands_of, set_c  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bands", required=True,
                    help="B2,B3[~C] (inf: every measured set of that order; ~C: RESIDUAL_SHRINK = C)")
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    bands = bands_of(args.bands)
    print("dataset eps seed err_main err_bands ratio measured_main measured_bands cpu_main cpu_bands")
    for name in args.datasets:
        X, _, sizes = load(name)
        ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            if all(n == 2 for n in sizes):
                print(f"# {name} m={ds.m} eps={eps:g}: binary data, no skip rule and no shrinkage: identical")
                continue
            sig = public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)
            act = acting(ds, sig, bands)
            n2, n3 = sum(len(A) == 2 for A in act), sum(len(A) == 3 for A in act)
            print(f"# {name} m={ds.m} eps={eps:g}: sets of order 2 / 3 shrunk: {n2} / {n3}: "
                  f"{'CHANGED' if act else 'identical'}", flush=True)
            if not act:
                continue
            logs = []
            for seed in args.seeds:
                out = []
                for b in ((0.0, 0.0), bands):
                    mp.RESIDUAL_SHRINK_BANDS = b
                    set_c(args.bands if b == bands else "0,0")
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                    out.append((*score(rel, truth, ds.m), time.process_time() - t0))
                mp.RESIDUAL_SHRINK_BANDS = (0.0, 0.0)
                set_c("0,0")
                (e0, k0, c0), (e1, k1, c1) = out
                logs.append(math.log(e1 / e0))
                print(f"{name} {eps:g} {seed} {e0:.6f} {e1:.6f} {e1 / e0:.4f} {k0} {k1} {c0:.2f} {c1:.2f}", flush=True)
            g, n = float(np.mean(logs)), len(logs)
            h = stats.t.ppf(0.975, n - 1) * float(np.std(logs, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
            print(f"# {name} {eps:g}: paired ratio bands {args.bands} / main {math.exp(g):.4f} "
                  f"[{math.exp(g - h):.4f}, {math.exp(g + h):.4f}] (geometric mean, 95% t-interval, n = {n})",
                  flush=True)


if __name__ == "__main__":
    main()

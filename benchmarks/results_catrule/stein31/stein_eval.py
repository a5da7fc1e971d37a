"""Evaluation, ONCE, of ``ONE_WAY_SHRINK_OFFSET = 0`` against the rule's 2 on titanic / adult / nltcs (stein31).

Run only after offset 0 was no worse on the fresh synthetic set D (``stein_fresh.py``, ``summary_fresh.txt``). Per
(dataset, epsilon) a public check (sizes, m, epsilon, delta) lists the measured 1-way sets below the band that each
offset shrinks; where they are the same (or the data are binary: no skip rule, no shrinkage) the releases are
identical and nothing is run. Elsewhere: both offsets, the same ``rng=seed`` (the same noisy measurement), L1 per
marginal / m as ``catrule_heldout.py`` scores it, paired ratio offset 0 / offset 2, geometric mean and 95% t-interval.

Usage: python benchmarks/results_catrule/stein31/stein_eval.py --datasets titanic adult nltcs \\
           --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 > benchmarks/results_catrule/stein31/eval_offset0.txt
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from catrule_study import score  # noqa: E402
from peers.data import load  # noqa: E402
from pubrule_study import public_sigmas  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.data.residuals import ResidualLayout  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402


def shrunk_sets(ds: Dataset, sig: np.ndarray, off: int) -> list[int]:
    """The attributes whose measured 1-way set :func:`~sosproj.mechanisms.marginals_pipeline.shrink_one_way`
    touches with offset ``off`` (public)."""
    layout = ResidualLayout.checked(ds.domain.sizes, mp.parse_workload(ds.domain, 3, None))
    snr = mp.set_snr(layout, sig, ds.m)
    return [A[0] for i, A in enumerate(layout.residual_sets)
            if len(A) == 1 and 0 < sig[i] < np.inf and snr[i] < mp.ONE_WAY_SHRINK_BAND
            and ds.domain.sizes[A[0]] - 1 > max(off, 0)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    for name in args.datasets:
        X, _, sizes = load(name)
        ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            if all(n == 2 for n in sizes):
                print(f"# {name} m={ds.m} eps={eps:g}: binary data, no skip rule and no shrinkage: identical")
                continue
            sig = public_sigmas(ds, eps, mp.AUTO_SKIP_SNR)
            s2, s0 = shrunk_sets(ds, sig, 2), shrunk_sets(ds, sig, 0)
            tag = "CHANGED" if s0 else "identical"
            print(f"# {name} m={ds.m} eps={eps:g}: shrunk with offset 2: {s2}, with offset 0: {s0} "
                  f"(sizes {[sizes[i] for i in s0]}): {tag}", flush=True)
            if not s0:
                continue
            logs = []
            for seed in args.seeds:
                out = []
                for off in (2, 0):
                    mp.ONE_WAY_SHRINK_OFFSET = off
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                    out.append((*score(rel, truth, ds.m), time.process_time() - t0))
                mp.ONE_WAY_SHRINK_OFFSET = 2
                (e2, k2, c2), (e0, k0, c0) = out
                logs.append(math.log(e0 / e2))
                print(f"{name} {eps:g} {seed} {e2:.6f} {e0:.6f} {e0 / e2:.4f} {k2} {k0} {c2:.2f} {c0:.2f}", flush=True)
            g, sd = float(np.mean(logs)), float(np.std(logs, ddof=1)) if len(logs) > 1 else 0.0
            half = 2.776 * sd / math.sqrt(len(logs)) if len(logs) == 5 else 1.96 * sd / math.sqrt(len(logs))
            print(f"# {name} {eps:g}: paired ratio offset 0 / offset 2 {math.exp(g):.4f} [{math.exp(g - half):.4f}, "
                  f"{math.exp(g + half):.4f}] (geometric mean, 95% t-interval, n = {len(logs)})", flush=True)


if __name__ == "__main__":
    main()

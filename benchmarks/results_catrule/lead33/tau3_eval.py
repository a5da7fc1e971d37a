"""Evaluation, ONCE, of a higher 3-way bar ``AUTO_SKIP_SNR = (2.5, 5, T3)`` against main's ``(2.5, 5, 8)`` on
titanic / adult / nltcs (lead, session 33; decision rule in ``notes.md``, run only after the variant passed set H).

Per (dataset, epsilon) a public check (sizes, m, epsilon, delta only: :func:`measured_sets` on the layout) says
whether the two bars measure different families; where not, the releases are identical and nothing is run.
Elsewhere: both bars with the same ``rng=seed``, L1 per 3-way marginal / m (``catrule_study.score``), paired ratio
variant / main, geometric mean and 95% t-interval.

Usage: python benchmarks/results_catrule/lead33/tau3_eval.py --tau3 12 --datasets titanic adult nltcs \\
           --eps 0.03 0.1 0.3 1 3 10 --seeds 0 1 2 3 4 > benchmarks/results_catrule/lead33/eval.txt
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
from catrule_study import score  # noqa: E402
from peers.data import load  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

MAIN = (2.5, 5.0, 8.0)


def scales(rel: object) -> np.ndarray:
    """The release's public noise scales, one per residual set in a fixed (sorted) order (inf: not measured)."""
    ns = rel.info["noise_scales"]  # type: ignore[attr-defined]
    return np.array([ns[k] for k in sorted(ns, key=lambda A: (len(A), A))], dtype=float)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tau3", type=float, required=True)
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    args = ap.parse_args()
    var = (2.5, 5.0, args.tau3)
    assert mp.AUTO_SKIP_SNR == MAIN, mp.AUTO_SKIP_SNR
    print("dataset eps seed err_main err_var ratio cpu_main cpu_var")
    for name in args.datasets:
        X, _, sizes = load(name)
        ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        for eps in args.eps:
            if all(n == 2 for n in sizes):
                print(f"# {name} m={ds.m} eps={eps:g}: binary data, no skip rule: identical")
                continue
            logs = []
            for seed in args.seeds:
                out = []
                for tau in (MAIN, var):
                    mp.AUTO_SKIP_SNR = tau
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
                    out.append((score(rel, truth, ds.m)[0], time.process_time() - t0,
                                scales(rel)))
                mp.AUTO_SKIP_SNR = MAIN
                (e0, c0, s0), (e1, c1, s1) = out
                if seed == args.seeds[0]:
                    same = s0.shape == s1.shape and bool(np.array_equal(s0, s1))
                    print(f"# {name} m={ds.m} eps={eps:g}: noise scales {'IDENTICAL' if same else 'CHANGED'} "
                          f"(sets measured main / variant: {int(np.isfinite(s0).sum())} / "
                          f"{int(np.isfinite(s1).sum())})", flush=True)
                    if same:
                        break
                logs.append(math.log(e1 / e0))
                print(f"{name} {eps:g} {seed} {e0:.6f} {e1:.6f} {e1 / e0:.4f} {c0:.2f} {c1:.2f}", flush=True)
            if not logs:
                continue
            g, n = float(np.mean(logs)), len(logs)
            h = stats.t.ppf(0.975, n - 1) * float(np.std(logs, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
            print(f"# {name} {eps:g}: paired ratio (2.5, 5, {args.tau3:g}) / main {math.exp(g):.4f} "
                  f"[{math.exp(g - h):.4f}, {math.exp(g + h):.4f}] (geometric mean, 95% t-interval, n = {n})",
                  flush=True)


if __name__ == "__main__":
    main()

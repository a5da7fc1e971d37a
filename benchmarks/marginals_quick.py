"""Quick check of the residual-marginals pipeline on the bundled datasets (all 3-way, delta 1e-9).

Usage: python benchmarks/marginals_quick.py DATASET EPS[,EPS...] SEEDS ALLOC[,..] RECON[,..]
Prints L1 error per marginal / m averaged over the workload, and the wall time per release.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

import sosproj as sp


def l1_error(ds, rel, sets) -> float:
    return float(np.mean([np.abs(rel.table(w) - ds.marginal(w)).sum() for w in sets]) / ds.m)


def main() -> None:
    name, eps_s, seeds, allocs, recons = sys.argv[1:6]
    ds = sp.load_dataset(name)
    sets = list(itertools.combinations(range(ds.n), 3))
    for eps in [float(e) for e in eps_s.split(",")]:
        for a in allocs.split(","):
            for r in recons.split(","):
                errs, times = [], []
                for seed in range(int(seeds)):
                    t0 = time.perf_counter()
                    if a == "tables":          # today's binary default: equal-noise tables + cube projection
                        rel = sp.release_marginals(ds.records, 3, epsilon=eps, delta=1e-9, rng=seed,
                                                   method="tables")
                    else:
                        rel = sp.release_marginals(ds, k=3, epsilon=eps, delta=1e-9, rng=seed, allocation=a,
                                                   reconstruction=r)
                    times.append(time.perf_counter() - t0)
                    errs.append(l1_error(ds, rel, sets))
                it = rel.info.get("reconstruction_info", rel.info).get("iterations")
                print(f"{name} eps={eps:g} alloc={a} recon={r} err={np.mean(errs):.5f} "
                      f"time={np.median(times):.1f}s iters={it} mix={rel.info.get('auto_mix')}", flush=True)
                if a == "tables":
                    break


if __name__ == "__main__":
    main()

"""planted32 at epsilon 0.03, seeds 0-9: the default release against the same release (same noise) with its cube
step run to the residual test (CUBE_GAP_TOL = None) and with every projection's tolerance 1e-4 (release_tables's
tolerance), to see whether the reconstruction's stops leave error that the peer release_tables (which runs its
cube projection to 1e-4) recovers (planted32_tables_check.txt). Information for the lead (session 35).
Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_allocation/binlow35/planted32_recon_check.py
"""
import itertools
import sys

import numpy as np

sys.path.insert(0, "benchmarks")
from peers.data import planted  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

X = planted(32)
ds = Dataset(X, Domain.from_sizes([2] * 32))
sets = list(itertools.combinations(range(32), 3))
truth = {w: ds.marginal(w) for w in sets}


def err(rel) -> float:
    return float(np.mean([np.abs(rel.table(w) - truth[w]).sum() for w in sets]) / X.shape[0])


def rel(seed: int, **options):
    return mp.release(ds, 3, epsilon=0.03, delta=1e-9, rng=seed, options=options or None)


print("seed default gap_none tol_1e-4", flush=True)
for seed in range(10):
    d = rel(seed)
    mp.CUBE_GAP_TOL = None
    a = rel(seed)
    mp.CUBE_GAP_TOL = 0.05
    b = rel(seed, tol=1e-4)
    print(seed, f"{err(d):.6f}", f"{err(a):.6f}", f"{err(b):.6f}", flush=True)

"""planted32 at epsilon 0.03 (issue 14's peers cell default / tables = 1.033 [1.003, 1.064], 5 seeds): the default
against the same pipeline with allocation="equal-tables" (paired: same standard normals) and against the peer
release_tables (equal-noise tables + cube, its own noise draw), seeds 0-9. Information for the lead (session 35).
Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results_allocation/binlow35/planted32_tables_check.py
"""
import itertools
import sys
import time

import numpy as np

sys.path.insert(0, "benchmarks")
from peers.data import planted  # noqa: E402

import sosproj as sp  # noqa: E402
from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms.marginal_tables import release_tables  # noqa: E402

X = planted(32)
ds = Dataset(X, Domain.from_sizes([2] * 32))
sets = list(itertools.combinations(range(32), 3))
truth = {w: ds.marginal(w) for w in sets}
m = X.shape[0]


def err(tab) -> float:
    return float(np.mean([np.abs(tab(w) - truth[w]).sum() for w in sets]) / m)


print("seed default equal_tables_alloc tables_peer cpu_s", flush=True)
for seed in range(10):
    c0 = time.process_time()
    d = sp.release_marginals(ds, 3, epsilon=0.03, delta=1e-9, rng=seed)
    e = sp.release_marginals(ds, 3, epsilon=0.03, delta=1e-9, rng=seed, allocation="equal-tables")
    t = release_tables(X.astype(np.uint8), 3, epsilon=0.03, delta=1e-9, rng=seed)
    print(seed, f"{err(d.table):.6f}", f"{err(e.table):.6f}",
          f"{err(t.table):.6f}", f"{time.process_time() - c0:.1f}", flush=True)

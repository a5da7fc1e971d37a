import itertools
import os
import sys
import time

import numpy as np

import sosproj as sp

ds = sp.load_dataset("adult")
X = np.asarray(ds.records if hasattr(ds, "records") else ds.data)
sizes = [int(s) for s in ds.domain.sizes]
m = X.shape[0]
def true_table(A):
    idx = np.ravel_multi_index(tuple(X[:, a] for a in A), tuple(sizes[a] for a in A))
    return np.bincount(idx, minlength=int(np.prod([sizes[a] for a in A]))).reshape([sizes[a] for a in A])
eps = float(sys.argv[1])
t = time.process_time()
rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=0)
cpu = time.process_time() - t
errs = [np.abs(np.asarray(rel.table(A)) - true_table(A)).sum() / m
        for A in itertools.combinations(range(len(sizes)), 3)]
ri = rel.info["reconstruction_info"]
ep = ri.get("extrapolation_projection", {})
print(f"eps={eps} N={os.environ.get('EXTRAP_MAX_ITER')} l1={np.mean(errs):.5f} cpu={cpu:.1f} conv={ri['converged']} "
      f"extrap_it={ep.get('iterations')} extrap_theta={ri.get('extrapolation_theta'):.4g}", flush=True)

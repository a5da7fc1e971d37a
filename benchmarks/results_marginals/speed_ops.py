"""Per-operator CPU cost (median of 7, process time) of one ADMM iteration's maps on adult, all 3-way marginals.

Run: ``PYTHONPATH=<source tree> OPENBLAS_NUM_THREADS=1 python benchmarks/results_marginals/speed_ops.py <label>``
"""

import sys
import time

import numpy as np

import sosproj as sp
from sosproj.data.residuals import ResidualLayout, all_k_way
from sosproj.sdp.marginal_admm import OneHotMoment, _psd_part


def tm(f, n: int = 7) -> float:
    f()
    ts = []
    for _ in range(n):
        a = time.process_time()
        f()
        ts.append(time.process_time() - a)
    return float(np.median(ts)) * 1e3


ds = sp.load_dataset("adult")
lay = ResidualLayout(ds.domain.sizes, all_k_way(15, 3))
mo = OneHotMoment(lay)
rng = np.random.default_rng(0)
r = lay.center(rng.standard_normal(lay.res_size))
t = rng.standard_normal(lay.tab_size)
M = mo.forward(r)
res = {"forward": tm(lambda: lay.forward(r)), "adjoint": tm(lambda: lay.adjoint(t)),
       "center": tm(lambda: lay.center(r.copy())), "mo.forward": tm(lambda: mo.forward(r)),
       "mo.adjoint": tm(lambda: mo.adjoint(M)), "psd (eigh 281)": tm(lambda: _psd_part(M))}
print(sys.argv[1], " ".join(f"{k} {v:.1f}" for k, v in res.items()), "ms CPU (median of 7)")

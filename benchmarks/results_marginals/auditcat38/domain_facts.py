"""Facts of the marginals[default-categorical] audit domain (session 38): per audit claim, the sets the public skip
rule leaves unmeasured, the L1 correction's spread on the measured sets, the sensitivity (exact search and brute force
over all record pairs of the domain) and the share of it the registered pair attains. Deterministic (noise off).

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/results_marginals/auditcat38/domain_facts.py
"""

import itertools
import math

import numpy as np

from sosproj.audit import MECHANISMS
from sosproj.audit.registry import DEFAULT_CATEGORICAL_M, DEFAULT_CATEGORICAL_SIZES, whitened_residuals
from sosproj.data.domain import Dataset, Domain
from sosproj.mechanisms import marginals_pipeline as mp
from sosproj.testing import noise_disabled

CLAIMS = [(0.5, 1e-5), (1.0, 1e-6), (2.0, 1e-6)]
case = MECHANISMS["marginals[default-categorical]"]
D, D2 = case.pair()
dom = Domain.from_sizes(list(DEFAULT_CATEGORICAL_SIZES))
recs = list(itertools.product(*[range(n) for n in DEFAULT_CATEGORICAL_SIZES]))
print(f"sizes {DEFAULT_CATEGORICAL_SIZES}, m = {DEFAULT_CATEGORICAL_M}, all 2-way sets, replace-one")
for eps, delta in CLAIMS:
    with noise_disabled():
        rel = case.release(eps, delta)(D, 0)
        w1, w2 = whitened_residuals(rel), whitened_residuals(case.release(eps, delta)(D2, 0))
    lay, info = rel.layout, rel.info
    s = np.array([info["noise_scales"].get(A, 0.0) if A else 1.0 for A in lay.residual_sets]) / info["sigma0"]
    s[lay.res_pos[()]] = 1.0
    keep = np.isfinite(s)
    nz = keep & np.array([bool(A) for A in lay.residual_sets])
    s0 = mp.allocation_shape(lay, "auto", m=DEFAULT_CATEGORICAL_M, epsilon=eps, mix=info["auto_mix"])
    r = s[nz] / s0[nz]
    phi = []
    for x in recs:
        v = lay.residuals_of_tables([Dataset(np.array([x]), dom).marginal(w) for w in lay.workload]) / lay.expand(s)
        v[lay.res_pos[()]] = 0.0
        phi.append(v)
    phi = np.array(phi)
    G = phi @ phi.T
    sq = np.diag(G)
    d2 = sq[:, None] + sq[None, :] - 2 * G
    brute = math.sqrt(float(d2.max()))
    i, j = np.unravel_index(int(np.argmax(d2)), d2.shape)
    diff = float(np.linalg.norm(w2 - w1))
    print(f"({eps:g}, {delta:g}): unmeasured {len(info['unmeasured_sets'])} of {len(lay.residual_sets) - 1} "
          f"{info['unmeasured_sets']}; measured {[A for A in lay.residual_sets if A and keep[lay.res_pos[A]]]}; "
          f"L1 correction s/s_uncorrected {np.round(r, 4).tolist()} (max/min {r.max() / r.min():.4f}); "
          f"sensitivity {rel.spec.sensitivity:.6f} (exact={info['sensitivity_exact']}), brute force {brute:.6f} "
          f"(e.g. {recs[i]} -> {recs[j]}); registered pair moves the whitened measurement by {diff:.6f} "
          f"= {diff / brute:.4f} of it; shrunk sets (public choice; with noise on, seed 0) "
          f"{case.release(eps, delta)(D, 0).info['shrunk_sets']}")

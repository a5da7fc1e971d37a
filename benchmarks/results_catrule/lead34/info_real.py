"""Information only, after the decision rule had rejected the variant (RULE.md step 1): variant L against main on
titanic and adult, paired (same ``rng = seed``), L1 per 3-way marginal / m, geometric mean of the per-seed ratios and
its 95% t-interval; the 1-way sets whose raw table L put back. Usage:
python benchmarks/results_catrule/lead34/info_real.py DATASET SEED0 SEED1 EPS... > info_real_DATASET.txt
"""

import itertools
import sys

import numpy as np
from scipy import stats

import sosproj as sp
import sosproj.mechanisms.marginals_pipeline as mp

name, s0, s1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ds = sp.load_dataset(name)
W = list(itertools.combinations(range(ds.n), 3))
truth = {w: ds.marginal(w) for w in W}


def err(rel):
    return float(np.mean([np.abs(np.asarray(rel.table(w)) - truth[w]).sum() / ds.m for w in W]))


print("dataset eps seeds mean_main mean_L ratio lo hi raw_sets(last seed)")
for eps in [float(e) for e in sys.argv[4:]]:
    a, b, raw = [], [], None
    for s in range(s0, s1):
        mp.ONE_WAY_L1_DRAWS = 0
        r0 = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=s)
        a.append(err(r0))
        if not r0.info["shrunk_one_way_sets"]:
            b.append(a[-1])
            continue
        mp.ONE_WAY_L1_DRAWS = 40
        r1 = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=s)
        b.append(err(r1))
        raw = r1.info["raw_one_way_sets"]
    lr = np.log(np.array(b) / np.array(a))
    h = stats.t.ppf(0.975, len(lr) - 1) * lr.std(ddof=1) / np.sqrt(len(lr)) if lr.std() > 0 else 0.0
    print(f"{name} {eps:g} {len(lr)} {np.mean(a):.5f} {np.mean(b):.5f} {np.exp(lr.mean()):.4f} "
          f"{np.exp(lr.mean() - h):.4f} {np.exp(lr.mean() + h):.4f} {raw}", flush=True)

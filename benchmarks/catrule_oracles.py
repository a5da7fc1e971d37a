"""How low can an independence-style estimate go on a dataset's 3-way marginals (issue 14, titanic eps <= 0.1)?

Prints, for a real dataset (evaluation data: nothing here is fitted or tuned), the error (average over all
3-way marginals of ||estimate - true||_1 / m, the metric of ``benchmarks/marginals_peers.py``) of

* ``uniform``: every table m / #cells (the best data-INDEPENDENT estimate the release can make with m public:
  any fixed table is a guess; the uniform one is what the projections fall back to),
* ``indep-true1``: the product of the TRUE 1-way marginals (an oracle: no privacy; the best any estimate
  that keeps the 1-way marginals and sets every interaction to zero can do, i.e. a lower bound for
  "measure the 1-way sets only"),
* the true residuals of order <= 1 (<= 2), higher ones zero (the ADDITIVE extrapolation that an
  unmeasured residual set gives), as is and projected (table metric, LNN) onto consistent non-negative
  tables (oracles for "measure the 1-way (and 2-way) sets only, noise-free"),

* ``private 1-way product``: a private estimate of that kind: the 1-way histograms of a public subset of the
  attributes measured with the whole budget (Gaussian mechanism, replace-one l2 sensitivity sqrt(2 #attributes),
  analytic calibration, delta 1e-9), negative counts clipped, rescaled to m, the others uniform, and the
  3-way tables their products (5 noise seeds per epsilon),

next to the stored RP + truncate-and-rescale rows (``benchmarks/results_peers/v4_*.jsonl``) at the epsilons asked.

Usage: python benchmarks/catrule_oracles.py titanic 0.03 0.1
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from peers.data import load  # noqa: E402

from sosproj.data.residuals import ResidualLayout, all_k_way  # noqa: E402


def l1(est: list[np.ndarray], true: list[np.ndarray], m: int) -> float:
    return float(np.mean([np.abs(e - t).sum() for e, t in zip(est, true, strict=True)])) / m


def main() -> None:
    name, eps = sys.argv[1], [float(e) for e in sys.argv[2:]]
    X, _, sizes = load(name)
    m, n = X.shape
    wl = all_k_way(n, 3)
    true = []
    for w in wl:
        t = np.zeros([sizes[i] for i in w])
        np.add.at(t, tuple(X[:, i] for i in w), 1.0)
        true.append(t)
    one = [np.bincount(X[:, i], minlength=sizes[i]) / m for i in range(n)]
    uni = [np.full(t.shape, m / t.size) for t in true]
    ind = [m * np.einsum("i,j,k->ijk", one[a], one[b], one[c]) for a, b, c in wl]
    print(f"{name}: m = {m}, n = {n}, sizes {sizes}, {len(wl)} 3-way marginals")
    print(f"uniform tables           L1/m = {l1(uni, true, m):.4f}")
    print(f"product of true 1-ways   L1/m = {l1(ind, true, m):.4f}")
    from sosproj.mechanisms.marginals_pipeline import table_metric
    from sosproj.sdp.marginal_admm import MarginalProjector

    lay = ResidualLayout(sizes, wl)
    for order in (1, 2):
        r = lay.residuals_of_tables(true)
        for A in lay.res_pos:
            if len(A) > order:
                lay.residual(r, A)[...] = 0.0
        est0 = [lay.marginal(r, w) for w in wl]
        proj = MarginalProjector(lay, table_metric(lay), psd=False, tol=1e-4, max_iter=5000)
        r2, info = proj.solve(r, on_fail="return")
        est = [lay.marginal(r2, w) for w in wl]
        print(f"true residuals of order <= {order}, higher 0: L1/m = {l1(est0, true, m):.4f} as is (negative cells "
              f"kept), {l1(est, true, m):.4f} after LNN in the table metric (converged {info['converged']})")
    from sosproj.privacy.calibration import gaussian_sigma

    for e in eps:
        for label, attrs in (("all attributes", list(range(n))),
                             ("attributes of <= 3 values", [i for i in range(n) if sizes[i] <= 3])):
            sig = gaussian_sigma(e, 1e-9, float(np.sqrt(2 * len(attrs))), "analytic")
            errs = []
            for seed in range(5):
                rng = np.random.default_rng(seed)
                p1 = [np.full(sizes[i], 1.0 / sizes[i]) for i in range(n)]
                for i in attrs:
                    h = np.maximum(np.bincount(X[:, i], minlength=sizes[i]) + sig * rng.standard_normal(sizes[i]), 0)
                    p1[i] = h / h.sum() if h.sum() > 0 else p1[i]
                est = [m * np.einsum("i,j,k->ijk", p1[a], p1[b], p1[c]) for a, b, c in wl]
                errs.append(l1(est, true, m))
            print(f"private 1-way product, eps {e:g}, {label} (sigma {sig:.0f}): L1/m = {np.mean(errs):.4f} "
                  f"(5 seeds, min {min(errs):.4f})")
    rows = [json.loads(x) for f in sorted((ROOT / "benchmarks/results_peers").glob("v4_*.jsonl"))
            for x in f.read_text().splitlines()]
    for e in eps:
        v = [x["l1"] for x in rows if x["dataset"] == name and x["method"] == "rp_trunc" and x["epsilon"] == e]
        print(f"RP+truncate eps {e:g}: mean L1/m = {np.mean(v):.4f} over {len(v)} seeds; 0.5x target = "
              f"{0.5 * np.mean(v):.4f}")


if __name__ == "__main__":
    main()

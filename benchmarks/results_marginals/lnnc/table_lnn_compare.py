"""_table_lnn (binary "auto" without a cube step: LNN projection in the table metric): ADMM vs dual on the
same captured measurement (branch lnnc, issue 14).

For each (dataset, epsilon, seed) the default release's measurement is captured (``RECONSTRUCTIONS["auto"]``
wrapped), then the table-metric LNN projection is solved by ``MarginalProjector.solve`` (ADMM) and
``solve_dual``, interleaved A, B, A, B (process CPU, median of 2). Columns: iterations, CPU s, converged, objective
1/2||c - c~||_W^2, duality gap (``certificate``), theta, L1 per workload table / m against the true tables.
planted64 at epsilon >= 3 runs the table step under "auto" (public SNR > BLOCK_CUBE_MAX_SNR); planted32 runs the
full cube under "auto", so its table step is forced here (the same measurement, projected by ``_table_lnn``'s
problem). From the worktree root:

  PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python \
      benchmarks/results_marginals/lnnc/table_lnn_compare.py planted64:3,10 planted32:1,3 --seeds 0,1,2
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
import numpy as np  # noqa: E402
from marginals_peers import _dataset  # noqa: E402
from peers.data import load  # noqa: E402

import sosproj as sp  # noqa: E402
import sosproj.mechanisms.marginals_pipeline as mp  # noqa: E402
from sosproj.sdp.marginal_admm import MarginalProjector  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
seeds = [0, 1, 2]
if "--seeds" in sys.argv:
    seeds = [int(s) for s in sys.argv[sys.argv.index("--seeds") + 1].split(",")]
    args = [a for a in args if a != sys.argv[sys.argv.index("--seeds") + 1]]
orig = mp.RECONSTRUCTIONS["auto"]
store = []


def capture(meas, options):
    store.append((meas, dict(options)))
    raise KeyboardInterrupt   # the measurement is all we need


print("load", os.getloadavg()[0], flush=True)
for spec in args:
    name, eps_s = spec.split(":")
    X, names, sizes = load(name)
    ds, _ = _dataset(name, X, names, sizes)
    for eps in [float(e) for e in eps_s.split(",")]:
        for seed in seeds:
            mp.RECONSTRUCTIONS["auto"] = capture
            store.clear()
            try:
                sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
            except KeyboardInterrupt:
                pass
            mp.RECONSTRUCTIONS["auto"] = orig
            meas, opts = store[0]
            lay = meas.layout
            snr = mp.public_snr(int(round(float(meas.residuals[lay.empty_pos]))), meas.spec.epsilon, lay)
            step = mp.binary_step(lay, snr)
            m = float(meas.residuals[lay.empty_pos])
            true_t = np.concatenate([np.ravel(ds.marginal(A)) for A in lay.workload])
            true_r = lay.residuals_of_tables([ds.marginal(A) for A in lay.workload])
            assert np.allclose(lay.forward(true_r), np.concatenate(
                [np.ravel(t) for t in lay.tables(lay.forward(true_r))])), "table order"
            true_t = lay.forward(true_r)
            w = mp.table_metric(lay)
            res = {"admm": [], "dual": []}
            for how in ("admm", "dual", "admm", "dual"):
                p = MarginalProjector(lay, w, psd=False, **opts)
                c = time.process_time()
                r, info = (p.solve if how == "admm" else p.solve_dual)(meas.residuals, on_fail="return")
                c = time.process_time() - c
                l1 = float(np.abs(lay.forward(r) - true_t).sum()) / (len(lay.workload) * m)
                res[how].append((info["iterations"], c, info["converged"], info["objective"],
                                 info["duality_gap"], info["theta"], l1, float(lay.forward(r).min())))
            la = os.getloadavg()[0]
            for how, rows in res.items():
                it, _, conv, obj, gap, th, l1, mn = rows[-1]
                cpu = statistics.median(r[1] for r in rows)
                print(f"{name} eps={eps:g} seed={seed} snr={snr:.1f} auto_step={step} {how:4s} it={it} "
                      f"cpu={cpu:.3f} conv={conv} obj={obj:.6e} gap={gap:.3e} relgap={gap / max(obj, 1):.2e} "
                      f"theta={th:.2e} l1={l1:.6f} mincell={mn:.3g} load={la:.2f}", flush=True)
print("load", os.getloadavg()[0])

"""High-SNR reconstructions on ONE noisy measurement (synthetic binary data only; never nltcs/adult/titanic).

Where the default allocation is ResidualPlanner's (high public SNR) the default release and GReM-LNN
post-process nearly the same measurement; this script measures, on the same noisy measurement per seed
(``allocation="rp"``, common random numbers), which post-processing is better: BLUE, GReM-LNN at the
grid's tolerance (0.1 counts, 1000 ADMM iterations) and converged (1e-3 counts), sosproj's LNN at its
default tolerance (1e-3, relative) and tight (1e-6), and the default binary reconstruction (Boolean-cube
projection then LNN), also tight.  Error: L1 per marginal / m over all 3-way marginals.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/allocation_highsnr.py > benchmarks/results_allocation/highsnr.txt
       OPENBLAS_NUM_THREADS=1 python benchmarks/allocation_highsnr.py --tol-sweep \
           > benchmarks/results_allocation/highsnr_tol.txt
(second form: sosproj's reconstructions at the solver tolerances 1e-3 (the old default), 1e-4, 2e-5, 1e-6,
seeds 0 and 1, with the label ``sosproj_<recon>_tol<tol>``).
       python benchmarks/allocation_highsnr.py --summary FILE... > benchmarks/results_allocation/highsnr_summary.txt
(mean error per (shape, epsilon, method) over the seeds that every method of the cell holds; the ratio
to GReM-LNN at the grid's setting when that is in the file).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from allocation_study import latent_class  # noqa: E402
from marginals_peers import errors, measurement_from_release  # noqa: E402
from peers.grem_lnn import grem_lnn  # noqa: E402
from peers.residual import MarginalWorkload, blue  # noqa: E402

from sosproj.mechanisms.marginals_pipeline import release  # noqa: E402

#: name: (sizes, m, Dirichlet alpha); binary14-m20k (alpha 0.5) left every BLUE table non-negative at
#: epsilon 3 and 10 (all reconstructions equal: highsnr_dense14.txt), so the study uses skewed data
SHAPES = {"binary16-m20k-skewed": ([2] * 16, 20000, 0.1)}


def summary(files: list[str]) -> None:
    from collections import defaultdict

    cells: dict = defaultdict(lambda: defaultdict(dict))
    for f in files:
        for ln in open(f):
            parts = ln.split()
            if len(parts) != 6 or parts[0] == "shape":
                continue
            shape, eps, seed, meth, l1, _sec = parts
            cells[(shape, float(eps))][meth][int(seed)] = float(l1)
    print("shape eps method n mean_l1 ratio_to_grem_lnn_grid(paired seeds)")
    for (shape, eps), by in cells.items():
        seeds = set.intersection(*(set(v) for v in by.values()))
        ref = by.get("grem_lnn_grid")
        for meth, v in by.items():
            mean = float(np.mean([v[s] for s in seeds]))
            r = float(np.mean([v[s] / ref[s] for s in seeds])) if ref and seeds <= set(ref) else float("nan")
            print(f"{shape} {eps:g} {meth} {len(seeds)} {mean:.7f} {r:.4f}")


def main() -> None:
    if sys.argv[1:2] == ["--summary"]:
        summary(sys.argv[2:])
        return
    sweep = "--tol-sweep" in sys.argv[1:]
    print("shape eps seed method l1 seconds", flush=True)
    for name, (sizes, m, alpha) in SHAPES.items():
        ds = latent_class(sizes, m, 4, np.random.default_rng(12345), alpha=alpha)
        wl = MarginalWorkload.all_k_way(sizes, 3)
        X = np.asarray(ds.records, dtype=np.int64)
        true = wl.workload_answers(X)
        ident = list(range(len(sizes)))
        for eps in (3.0, 10.0):
            for seed in range(2 if sweep else 4):
                kw = {"epsilon": eps, "delta": 1e-9, "rng": seed, "allocation": "rp"}
                meas = measurement_from_release(release(ds, 3, reconstruction="blue", **kw), wl, ident)
                plan = (("blue", "peer", {}),
                                          ("grem_lnn_grid", "peer", {"tol": 0.1, "max_iter": 1000}),
                                          ("grem_lnn_conv", "peer", {"tol": 1e-3, "max_iter": 5000}),
                                          ("sosproj_lnn", "lnn", {}),
                                          ("sosproj_lnn_tight", "lnn", {"tol": 1e-6, "max_iter": 5000}),
                                          ("sosproj_cube_lnn", "auto", {}),
                                          ("sosproj_cube_lnn_tight", "auto", {"tol": 1e-6, "max_iter": 5000}))
                if sweep:
                    plan = tuple((f"sosproj_{'cube_lnn' if r == 'auto' else r}_tol{tol:g}", r,
                                  {"tol": tol, "max_iter": 5000})
                                 for r in ("lnn", "auto") for tol in (1e-3, 1e-4, 2e-5, 1e-6))
                for label, what, opts in plan:
                    t0 = time.perf_counter()
                    if label == "blue":
                        est = blue(meas)
                    elif what == "peer":
                        est = grem_lnn(meas, **opts)
                    else:
                        rel = release(ds, 3, reconstruction=what, options={**opts, "on_fail": "return"}, **kw)
                        est = np.concatenate([np.asarray(rel.table(w), float).ravel() for w in wl.sets])
                    dt = time.perf_counter() - t0
                    print(f"{name} {eps:g} {seed} {label} {errors(wl, est, true, m)[0]:.7f} {dt:.2f}", flush=True)


if __name__ == "__main__":
    main()

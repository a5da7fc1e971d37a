"""The extrapolation of unmeasured residual sets: the default release NEW (this tree) vs OLD (another tree).

Each release runs in a child process (``PYTHONPATH`` = the source tree, one BLAS thread) on the same
dataset, epsilon and seed: ``sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)`` (the default:
``allocation="auto"``, ``reconstruction="auto"``, replace-one adjacency). The child prints one JSON line:
L1 per marginal / m (mean over the 3-way workload of ``||released - true||_1 / m``, as
``benchmarks/marginals_peers.py``), CPU time (``time.process_time()`` around the release), wall time,
``info["converged"]`` and the extrapolation step's diagnostics. OLD is main at b5438f5 from a snapshot::

    git archive b5438f5 | tar -x -C /tmp/extrap_base

The v10 run (branch adult, issue 14: the IPF stall stop; NEW and OLD both snapshots, main at 5778d9e as OLD) is
``benchmarks/results_marginals/adult_v10/run_paired.sh``.

Usage::

    python benchmarks/extrap_study.py --datasets titanic --epsilons 0.3 1 3 --seeds 0 1 2 3 4 \\
        --base-src /tmp/extrap_base --out benchmarks/results_marginals/extrap_v8/study.jsonl
    python benchmarks/extrap_study.py --summary benchmarks/results_marginals/extrap_v8/study.jsonl \\
        [--old-rows benchmarks/results_peers/v7_adult_A.jsonl ...]

``--which new|old|both`` picks the trees (default both). ``--summary`` prints, per dataset and epsilon, the
paired per-seed ratios NEW / OLD of L1 (mean and a 95% t-interval) and of CPU time (median), and the
``converged`` counts. ``--old-rows``: the OLD L1 of pairs whose OLD release was not re-run here, from the
``sosproj`` rows of ``benchmarks/marginals_peers.py`` files of the same code (the release is deterministic
given the seed; a pair re-run here checks that the L1 agrees); their CPU ratios are not reported.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

_CHILD = r"""
import itertools, json, sys, time
import numpy as np
import sosproj as sp
name, eps, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
ds = sp.load_dataset(name)
X = np.asarray(ds.records if hasattr(ds, "records") else ds.data)
sizes = [int(s) for s in ds.domain.sizes]
m = X.shape[0]
t0, c0 = time.perf_counter(), time.process_time()
rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
cpu, wall = time.process_time() - c0, time.perf_counter() - t0
errs = []
for A in itertools.combinations(range(len(sizes)), 3):
    idx = np.ravel_multi_index(tuple(X[:, a] for a in A), tuple(sizes[a] for a in A))
    true = np.bincount(idx, minlength=int(np.prod([sizes[a] for a in A]))).reshape([sizes[a] for a in A])
    errs.append(float(np.abs(np.asarray(rel.table(A)) - true).sum()) / m)
tabs = [np.asarray(rel.table(A)) for A in itertools.combinations(range(len(sizes)), 3)]
ri = rel.info["reconstruction_info"]
ep = ri.get("extrapolation_projection") or {}
print(json.dumps({"src": sp.__file__, "l1": float(np.mean(errs)), "cpu": cpu, "wall": wall,
                  "converged": bool(ri.get("converged")),
                  "recon_solver": ri.get("solver"), "recon_iterations": ri.get("iterations"),
                  "recon_time": ri.get("time"),
                  "min_cell": float(min(t.min() for t in tabs)),
                  "max_total_error": float(max(abs(t.sum() - m) for t in tabs)),
                  "unmeasured": len(rel.info["unmeasured_sets"]), "extrapolation": ri.get("extrapolation"),
                  "extrapolation_theta": ri.get("extrapolation_theta"), "ipf_unmet": ri.get("ipf_unmet"),
                  "proj_iterations": ep.get("iterations"), "proj_converged": ep.get("converged"),
                  "proj_time": ep.get("time"), "proj_gap": ep.get("duality_gap")}))
"""


def run_child(src: str, name: str, eps: float, seed: int) -> dict:
    """One default release of the tree ``src`` in a child process (one BLAS thread)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:                # not the worktree: '' leads sys.path under -c
        out = subprocess.run([sys.executable, "-c", _CHILD, name, repr(eps), str(seed)], env=env, check=True,
                             capture_output=True, text=True, cwd=tmp)
    return json.loads(out.stdout.strip().splitlines()[-1])


def t_interval(x: list[float]) -> tuple[float, float, float]:
    """Mean and 95% t-interval of ``x``."""
    from scipy import stats

    a = np.asarray(x, dtype=float)
    if a.size < 2:
        return float(a.mean()), float("nan"), float("nan")
    h = float(stats.t.ppf(0.975, a.size - 1)) * float(a.std(ddof=1)) / math.sqrt(a.size)
    return float(a.mean()), float(a.mean()) - h, float(a.mean()) + h


def summary(path: str, old_rows: list[str]) -> None:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    by: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        by[(r["dataset"], r["epsilon"], r["seed"])][r["which"]] = r
    ext: dict[tuple, float] = {}
    for f in old_rows:
        for line in Path(f).read_text().splitlines():
            d = json.loads(line)
            if d.get("method") == "sosproj":
                ext[(d["dataset"], float(d["epsilon"]), int(d["seed"]))] = float(d["l1"])
    groups: dict[tuple, list] = defaultdict(list)
    for (name, eps, seed), d in sorted(by.items()):
        groups[(name, eps)].append((seed, d))
    print("dataset eps | seeds | L1 NEW (mean) | L1 OLD (mean) | L1 ratio NEW/OLD mean [95%] | per-seed ratios |"
          " CPU NEW / OLD median (s) | CPU ratio median (paired n) | converged NEW, OLD | OLD L1 check")
    for (name, eps), items in sorted(groups.items()):
        ratios, cpu_r, l1n, l1o, cn, co, cpun, cpuo, checks = [], [], [], [], 0, 0, [], [], []
        for seed, d in items:
            if "new" not in d:
                continue
            n = d["new"]
            cn += n["converged"]
            cpun.append(n["cpu"])
            o_l1 = None
            if "old" in d:
                o = d["old"]
                o_l1 = o["l1"]
                co += o["converged"]
                cpuo.append(o["cpu"])
                cpu_r.append(n["cpu"] / o["cpu"])
                if (name, eps, seed) in ext:
                    checks.append(abs(ext[(name, eps, seed)] - o["l1"]))
            elif (name, eps, seed) in ext:
                o_l1 = ext[(name, eps, seed)]
            if o_l1 is not None:
                ratios.append(n["l1"] / o_l1)
                l1n.append(n["l1"])
                l1o.append(o_l1)
        if not ratios:
            continue
        mean, lo, hi = t_interval(ratios)
        cpu_o = f"{np.median(cpuo):.1f}" if cpuo else "-"
        cpu_ratio = f"{np.median(cpu_r):.3f}" if cpu_r else "-"
        check = f"max |diff| {max(checks):.1e} ({len(checks)})" if checks else "-"
        per_seed = " ".join(f"{x:.4f}" for x in ratios)
        print(f"{name} {eps} | {len(ratios)} | {np.mean(l1n):.5f} | {np.mean(l1o):.5f} | "
              f"{mean:.4f} [{lo:.4f}, {hi:.4f}] | {per_seed} | {np.median(cpun):.1f} / {cpu_o} | "
              f"{cpu_ratio} ({len(cpu_r)}) | {cn}/{len(cpun)}, {co}/{len(cpuo)} | {check}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["titanic", "adult"])
    ap.add_argument("--epsilons", nargs="+", type=float, default=[0.3, 1.0, 3.0])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--base-src", default="/tmp/extrap_base", help="OLD source tree (git archive b5438f5)")
    ap.add_argument("--new-src", default=None, help="NEW source tree (default: this worktree; a git archive "
                    "snapshot keeps edits made during the run out of it)")
    ap.add_argument("--which", choices=["new", "old", "both"], default="both")
    ap.add_argument("--out", default="benchmarks/results_marginals/extrap_v8/study.jsonl")
    ap.add_argument("--summary", default=None)
    ap.add_argument("--old-rows", nargs="*", default=[])
    args = ap.parse_args(argv)
    if args.summary:
        summary(args.summary, args.old_rows)
        return
    new_src = args.new_src or str(Path(__file__).resolve().parents[1])
    trees = {"new": new_src, "old": args.base_src}
    which = ["new", "old"] if args.which == "both" else [args.which]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    for name in args.datasets:
        for eps in args.epsilons:
            for seed in args.seeds:
                for w in which:
                    rec = run_child(trees[w], name, eps, seed)
                    rec.update({"dataset": name, "epsilon": eps, "seed": seed, "which": w,
                                "load": os.getloadavg()[0]})
                    with open(args.out, "a") as f:
                        f.write(json.dumps(rec) + "\n")
                    print(f"{name} eps={eps} seed={seed} {w}: l1={rec['l1']:.5f} cpu={rec['cpu']:.1f} "
                          f"conv={rec['converged']} proj_it={rec['proj_iterations']} load={rec['load']:.1f}",
                          flush=True)


if __name__ == "__main__":
    main()

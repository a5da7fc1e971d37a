"""Before/after timing of the default marginal release, in one run (issue 14, the residual transforms).

Each release runs in its own child process with ``PYTHONPATH`` pointing at one of two source trees
(``--before`` and ``--after``, e.g. ``git archive`` snapshots of two commits); the two are interleaved
(before, after, before, after, ...) so that both see the same machine load.  The child times
``sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)`` alone (wall clock and process CPU
time; the data are loaded before the clock starts) and saves the released residual vector, so the
parent also reports the largest relative difference between the two trees' releases (the batched
transforms must agree with the per-pattern ones to rounding).  One BLAS thread.

Usage::

    python benchmarks/marginals_speed.py --before /tmp/base --after /tmp/new [--cases adult nltcs titanic]
        [--repeats 3] [--eps 1] [--max-iter N] [--out benchmarks/results_marginals/speed_v4.jsonl]

``--max-iter N`` caps the projections (``project_options={"max_iter": N, "on_fail": "return"}``): the
per-iteration cost of two trees whose iterates agree, without paying the whole iteration budget.
The child also records its peak resident memory (``getrusage``, interpreter and data included).

Prints one line per release and, per case, the median wall and CPU time of each tree and their ratio
(before / after); appends one JSON row per release to ``--out`` with the 1-minute load average before and
after the child.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CASES = ("adult", "nltcs", "titanic")


def child(case: str, eps: float, seed: int, save: str, max_iter: int | None = None) -> dict:
    """One default release of ``case`` in this process (imports whatever ``PYTHONPATH`` points at)."""
    import sosproj as sp

    ds = sp.load_dataset(case)
    t0, c0 = time.perf_counter(), time.process_time()
    kw = {} if max_iter is None else {"project_options": {"max_iter": max_iter, "on_fail": "return"}}
    rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed, **kw)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0   # Linux: kilobytes
    np.save(save, np.asarray(rel.residuals, dtype=float))
    ri = rel.info.get("reconstruction_info", {})
    return {"case": case, "eps": eps, "seed": seed, "wall_s": wall, "cpu_s": cpu, "sosproj": sp.__file__,
            "iterations": ri.get("iterations"), "psd": ri.get("psd"), "method": rel.info.get("allocation"),
            "converged": ri.get("converged"), "max_iter": max_iter, "rss_peak_mb": peak}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True, help="source tree of the baseline (its root holds sosproj/)")
    ap.add_argument("--after", required=True, help="source tree of the new code")
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-iter", type=int, default=None, help="cap the projections' iterations")
    ap.add_argument("--out", default="benchmarks/results_marginals/speed.jsonl")
    ap.add_argument("--child", nargs=2, metavar=("CASE", "SAVE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print("ROW " + json.dumps(child(args.child[0], args.eps, args.seed, args.child[1], args.max_iter)),
              flush=True)
        return
    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    tmp = Path(tempfile.mkdtemp(prefix="marginals_speed_"))
    for case in args.cases:
        rows: dict[str, list[dict]] = {"before": [], "after": []}
        saved: dict[str, Path] = {}
        for rep in range(args.repeats):
            for which, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=tree, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                           MKL_NUM_THREADS="1")
                save = tmp / f"{case}_{which}.npy"
                load0 = os.getloadavg()[0]
                cmd = [sys.executable, __file__, "--child", case, str(save), "--eps", str(args.eps), "--seed",
                       str(args.seed), "--before", tree, "--after", tree]
                if args.max_iter is not None:
                    cmd += ["--max-iter", str(args.max_iter)]
                res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
                load1 = os.getloadavg()[0]
                line = [ln for ln in res.stdout.splitlines() if ln.startswith("ROW ")]
                if res.returncode != 0 or not line:
                    print(f"{case} {which} rep={rep}: child failed (rc={res.returncode})\n{res.stderr[-2000:]}",
                          flush=True)
                    continue
                row = json.loads(line[-1][4:])
                row.update(tree=which, commit_tree=tree, rep=rep, load1_before=load0, load1_after=load1)
                rows[which].append(row)
                saved[which] = save
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(f"{case} {which:6s} rep={rep}: wall {row['wall_s']:.2f}s cpu {row['cpu_s']:.2f}s "
                      f"iterations={row['iterations']} peak {row['rss_peak_mb']:.0f} MB load {load0:.1f}->{load1:.1f}",
                      flush=True)
        if len(saved) == 2:
            a, b = np.load(saved["before"]), np.load(saved["after"])
            rel_diff = float(np.max(np.abs(a - b)) / max(np.max(np.abs(a)), 1e-300))
            print(f"{case}: max |before - after| / max |before| over the released residuals = {rel_diff:.2e}")
        if rows["before"] and rows["after"]:
            med = {w: (float(np.median([r["wall_s"] for r in rs])), float(np.median([r["cpu_s"] for r in rs])))
                   for w, rs in rows.items()}
            print(f"{case}: median wall before {med['before'][0]:.2f}s after {med['after'][0]:.2f}s "
                  f"(x{med['before'][0] / med['after'][0]:.2f}); median cpu before {med['before'][1]:.2f}s "
                  f"after {med['after'][1]:.2f}s (x{med['before'][1] / med['after'][1]:.2f})", flush=True)


if __name__ == "__main__":
    main()

"""Scale check of the default marginal release (issue 14's scale targets), all 3-way marginals.

Cases: ``planted32`` / ``planted64`` (synthetic binary, planted clusters, m = 20,000, the peers' harness
data: ``benchmarks.peers.data.planted``) and ``adult`` (bundled copy, 15 categorical attributes, 2-42
values, m = 48,842).  Targets: n = 64 <= 5 minutes per release; adult <= 5 minutes and <= 4 GiB on 2 cores.

Every release runs in its own child process (a fresh interpreter), so its peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``, read right after the release, before the error
evaluation) is the release's own, plus the interpreter, the imports and the data.  The child also
reports the resident memory before the release (interpreter + imports + data), the wall time and the
process CPU time of ``sp.release_marginals`` alone (the data are built before the clock starts), and the
error (mean L1 per marginal / m, computed after the measurements).  The parent records the 1-minute load
average before and after every child: on a shared machine the CPU time is the figure that transfers.

Usage::

    python benchmarks/marginals_scale.py [--cases planted32 planted64 adult] [--repeats 2] [--eps 1]
        [--out benchmarks/results_marginals/scale.jsonl]

Prints one line per release and a summary (median wall / CPU time, largest peak RSS) per case; appends
one JSON row per release to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CASES = ("planted32", "planted64", "adult")


def _rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kilobytes


def child(case: str, eps: float, seed: int, evaluate: bool) -> dict:
    """One release in this process; returns the measurements (the parent runs it in a fresh process)."""
    import itertools

    import sosproj as sp

    if case == "adult":
        ds = sp.load_dataset("adult")
    elif case.startswith("planted"):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from benchmarks.peers.data import planted

        n = int(case[len("planted"):])
        ds = sp.Dataset(planted(n), sp.Domain.from_sizes([2] * n))
    else:
        raise SystemExit(f"unknown case {case!r}; use one of {CASES}")
    rss_before = _rss_mb()
    t0, c0 = time.perf_counter(), time.process_time()
    rel = sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_peak = _rss_mb()
    ri = rel.info.get("reconstruction_info", {})
    row = {"case": case, "n": ds.n, "m": ds.m, "sizes_max": int(max(ds.domain.sizes)), "eps": eps,
           "delta": 1e-9, "seed": seed, "wall_s": wall, "cpu_s": cpu, "rss_before_mb": rss_before,
           "rss_peak_mb": rss_peak, "iterations": ri.get("iterations"), "converged": ri.get("converged"),
           "theta": ri.get("theta"), "duality_gap": ri.get("duality_gap"), "objective": ri.get("objective"),
           "psd": ri.get("psd"),
           "extrapolation_projection": ri.get("extrapolation_projection"),
           "moment_matrix_order": ri.get("moment_matrix_order"), "cube": str(ri.get("cube")),
           "reconstruction": rel.info.get("reconstruction"), "auto_mix": rel.info.get("auto_mix")}
    if evaluate:
        sets = list(itertools.combinations(range(ds.n), 3))
        row["err_l1"] = float(np.mean([np.abs(rel.table(w) - ds.marginal(w)).sum() for w in sets]) / ds.m)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--no-error", action="store_true", help="skip the error evaluation")
    ap.add_argument("--out", default="benchmarks/results_marginals/scale.jsonl")
    ap.add_argument("--child", nargs=2, metavar=("CASE", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        row = child(args.child[0], args.eps, int(args.child[1]), not args.no_error)
        print("ROW " + json.dumps(row), flush=True)
        return
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    rows: dict[str, list[dict]] = {}
    for case in args.cases:
        for seed in range(args.repeats):
            load0 = os.getloadavg()[0]
            cmd = [sys.executable, __file__, "--child", case, str(seed), "--eps", str(args.eps)]
            if args.no_error:
                cmd.append("--no-error")
            res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            load1 = os.getloadavg()[0]
            line = [ln for ln in res.stdout.splitlines() if ln.startswith("ROW ")]
            if res.returncode != 0 or not line:
                print(f"{case} seed={seed}: child failed (rc={res.returncode})\n{res.stderr[-2000:]}", flush=True)
                continue
            row = json.loads(line[-1][4:])
            row.update(load1_before=load0, load1_after=load1,
                       warnings=[ln for ln in res.stderr.splitlines() if "Warning" in ln][:3])
            rows.setdefault(case, []).append(row)
            with open(args.out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            err = f" err={row['err_l1']:.5f}" if "err_l1" in row else ""
            print(f"{case} n={row['n']} m={row['m']} eps={args.eps:g} seed={seed}: wall {row['wall_s']:.1f}s "
                  f"cpu {row['cpu_s']:.1f}s peak {row['rss_peak_mb']:.0f} MB (before release "
                  f"{row['rss_before_mb']:.0f} MB) iterations={row['iterations']} psd={row['psd']}{err} "
                  f"converged={row['converged']} "
                  f"extrapolation_iterations={(row.get('extrapolation_projection') or {}).get('iterations')} "
                  f"load {load0:.1f}->{load1:.1f}", flush=True)
    print("summary (median over repeats; peak = largest):")
    for case, rs in rows.items():
        print(f"  {case}: wall {np.median([r['wall_s'] for r in rs]):.1f}s  cpu "
              f"{np.median([r['cpu_s'] for r in rs]):.1f}s  peak {max(r['rss_peak_mb'] for r in rs):.0f} MB  "
              f"load {min(r['load1_before'] for r in rs):.1f}-{max(r['load1_after'] for r in rs):.1f}  "
              f"({len(rs)} runs)", flush=True)


if __name__ == "__main__":
    main()

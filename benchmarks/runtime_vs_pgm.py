"""Benchmark: sosproj's default release against AIM / MST, timed in the SAME run (issue 14, runtime half).

For each cell ``(peer, dataset, epsilon, seed)`` the harness runs, one after the other and interleaved,
``sosproj, peer, sosproj, ...`` (``--sosproj-repeats`` sosproj releases around the peer's run; the
median is the cell's sosproj figure), each in its own subprocess with ONE BLAS thread:

* sosproj: ``sp.release_marginals(ds, 3, epsilon=eps, delta=1e-9, rng=seed)`` (the default allocation and
  reconstruction, ``benchmarks/marginals_peers.py``'s ``sosproj`` method) imported from ``--sosproj-src``
  (default: this worktree), so that a snapshot of another version can be timed with the same harness;
* the peer: ``benchmarks/peers/run_private_pgm.py`` (smartnoise-synth's AIM / MST) with the peers' venv
  python, cut off after ``--peer-timeout`` seconds (recorded as such, never scored).

Recorded per run: ``wall_s`` and ``cpu_s`` of the algorithm itself (measured inside the subprocess:
sosproj's release incl. the layout and measurement; the peer's fit + sample, as ``run_private_pgm.py``
times it), ``proc_wall_s`` and ``proc_cpu_s`` of the whole subprocess (interpreter start, imports and
data loading included; CPU from ``resource.getrusage(RUSAGE_CHILDREN)`` differences), the 1-minute load
average before and after, and the error: average L1 per 3-way marginal / m, the peer's from its synthetic
data exactly as ``benchmarks/marginals_peers.py`` scores it (``MarginalWorkload.workload_answers``).
Ratios ``sosproj / peer`` (median sosproj over the peer's single run) are printed per cell; the raw rows
are appended to ``--out`` (JSON lines).  ``--baseline-src`` times a second sosproj (e.g. a snapshot of main)
in the same cells, interleaved (``sosproj, peer, base, sosproj, base``), and prints the paired CPU and error
ratios; the peer ``none`` runs the two sosproj versions only.

Example (the commands behind docs/bench_peers.md are in benchmarks/results_peers/runtime_v8/COMMAND.md)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/runtime_vs_pgm.py \\
        --cells mst:titanic:1:0 mst:nltcs:0.3:0 --out /tmp/rt.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS_PYTHON = "/work/venv-peers/bin/python"
#: the peer implementations: (python of their venv, runner). ``smartnoise``: smartnoise-synth 1.0.8 on mbi 1.1.0 (its
#: AIM is the refactored private-pgm code without the warm start, which the authors' repository says not to compare
#: against); ``dpmm``: dpmm 0.1.9, the authors' pre-refactoring ``mechanisms/aim.py`` / ``mst.py`` (warm-started
#: ``FactoredInference``), docs/bench_peers.md "Which AIM"
PEER_IMPLS = {"smartnoise": (PEERS_PYTHON, "benchmarks/peers/run_private_pgm.py"),
              "dpmm": ("/work/venv-dpmm/bin/python", "benchmarks/peers/run_dpmm.py")}
DELTA = 1e-9
K = 3
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}


def _load1() -> float:
    return os.getloadavg()[0]


def sosproj_child(src: str, name: str, eps: float, seed: int, out: str) -> None:
    """Run in a subprocess: one default release from the sosproj at ``src``; its times and error to ``out``."""
    sys.path.insert(0, str(Path(src).resolve()))
    import sosproj as sp  # noqa: F401  - imported first, so the snapshot's sosproj is the one used

    if not Path(sp.__file__).resolve().is_relative_to(Path(src).resolve()):
        raise SystemExit(f"sosproj imported from {sp.__file__}, not from {src}")
    sys.path.insert(1, str(ROOT / "benchmarks"))
    sys.path.insert(1, str(ROOT))
    from marginals_peers import _dataset, _tables_from_release, errors
    from peers.data import load
    from peers.residual import MarginalWorkload

    X, names, sizes = load(name)
    wl = MarginalWorkload.all_k_way(sizes, K)
    true = wl.workload_answers(X)
    t0, c0 = time.perf_counter(), time.process_time()
    ds, attr_map = _dataset(name, X, names, sizes)
    rel = sp.release_marginals(ds, K, epsilon=eps, delta=DELTA, rng=seed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    est = _tables_from_release(rel, wl, attr_map)
    l1, _ = errors(wl, est, true, X.shape[0])
    ri = rel.info.get("reconstruction_info") or {}
    extra = {k: ri[k] for k in ("converged", "iterations", "binary_step") if k in ri}
    if isinstance(ri.get("cube"), dict):
        extra["cube_iterations"] = ri["cube"].get("iterations")
    Path(out).write_text(json.dumps({"wall_s": wall, "cpu_s": cpu, "l1": l1, "sosproj_file": sp.__file__,
                                     **extra}))


def _child_run(cmd: list[str], timeout: float, env: dict[str, str]) -> tuple[int | None, float, float]:
    """(return code or None when cut off, wall seconds, CPU seconds of the subprocess)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        rc: int | None = subprocess.run(cmd, env=env, timeout=timeout, check=False).returncode
    except subprocess.TimeoutExpired:
        rc = None
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return rc, wall, cpu


def run_sosproj(src: str, name: str, eps: float, seed: int, env: dict[str, str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "row.json"
        la = _load1()
        rc, wall, cpu = _child_run([sys.executable, str(Path(__file__).resolve()), "--sosproj-child", src, name,
                                    f"{eps:g}", str(seed), str(out)], 3600, env)
        if rc != 0:
            raise SystemExit(f"sosproj release failed (rc={rc}) on {name} eps={eps:g} seed={seed}")
        row = json.loads(out.read_text())
    return {"method": "sosproj", "proc_wall_s": wall, "proc_cpu_s": cpu, "load_before": la, "load_after": _load1(),
            **row}


def run_peer(meth: str, name: str, eps: float, seed: int, timeout: float, env: dict[str, str],
             keep_dir: Path | None, impl: str = "smartnoise") -> dict:
    import numpy as np

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from marginals_peers import errors
    from peers.data import DATA_DIR, load
    from peers.residual import MarginalWorkload

    with tempfile.TemporaryDirectory() as tmp:
        npz = Path(tmp) / "out.npz"
        la = _load1()
        python, runner = PEER_IMPLS[impl]
        rc, wall, cpu = _child_run([python, str(ROOT / runner), meth,
                                    str(DATA_DIR / f"{name}.csv"), str(DATA_DIR / f"{name}-domain.json"),
                                    f"{eps:g}", f"{DELTA:g}", str(seed), str(npz)], timeout, env)
        row = {"method": meth, "proc_wall_s": wall, "proc_cpu_s": cpu, "load_before": la, "load_after": _load1(),
               **({"peer_impl": impl} if impl != "smartnoise" else {})}
        if rc is None:
            return {**row, "cutoff": True, "cutoff_s": timeout, "l1": None, "wall_s": None, "cpu_s": None}
        if rc != 0:
            return {**row, "failed": rc, "l1": None, "wall_s": None, "cpu_s": None}
        z = np.load(npz)
        X, _, sizes = load(name)
        wl = MarginalWorkload.all_k_way(sizes, K)
        l1, _ = errors(wl, wl.workload_answers(z["synth"]), wl.workload_answers(X), X.shape[0])
        if keep_dir is not None:
            keep_dir.mkdir(parents=True, exist_ok=True)
            (keep_dir / f"{meth}_{impl}_{name}_{eps:g}_{seed}.npz").write_bytes(npz.read_bytes())
        return {**row, "l1": l1, "wall_s": float(z["time"]),
                "cpu_s": float(z["cpu"]) if "cpu" in z.files else None,
                "maxrss_mib": float(z["maxrss_kb"]) / 1024}


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def summary(paths: list[str]) -> None:
    """Per (dataset, peer, epsilon): medians over seeds of the per-seed ratios sosproj / peer (CPU of the
    algorithm, CPU of the whole subprocess, wall) and of the error ratio; the load range of the cell."""
    rows = [json.loads(ln) for p in paths for ln in Path(p).read_text().splitlines() if ln.strip()]
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["dataset"], r["peer"], r["epsilon"], r["seed"], r.get("label", "")), []).append(r)
    agg: dict = {}
    for (name, peer, eps, _seed, _), rs in cells.items():
        if peer == "none":
            continue
        sos = [r for r in rs if r["method"] == "sosproj"]
        pr = [r for r in rs if r["method"] == peer]
        if not sos or not pr or pr[0].get("cpu_s") is None:
            continue
        med = {k: statistics.median(r[k] for r in sos) for k in ("cpu_s", "proc_cpu_s", "wall_s", "l1")}
        p0 = pr[0]
        loads = [r["load_before"] for r in rs] + [r["load_after"] for r in rs]
        agg.setdefault((name, peer, eps), []).append(
            (med["cpu_s"], p0["cpu_s"], med["cpu_s"] / p0["cpu_s"], med["proc_cpu_s"] / p0["proc_cpu_s"],
             med["wall_s"] / p0["wall_s"], med["l1"] / p0["l1"], min(loads), max(loads)))
    print("dataset peer eps seeds sosproj_cpu_s peer_cpu_s cpu_ratio proc_cpu_ratio wall_ratio l1_ratio load")
    for (name, peer, eps), v in sorted(agg.items()):
        col = list(zip(*v))
        print(f"{name} {peer} {eps:g} {len(v)} {statistics.median(col[0]):.2f} {statistics.median(col[1]):.1f} "
              f"{statistics.median(col[2]):.3f} {statistics.median(col[3]):.3f} {statistics.median(col[4]):.3f} "
              f"{statistics.median(col[5]):.3f} {min(col[6]):.1f}-{max(col[7]):.1f}")
    base = [(k, rs) for k, rs in cells.items() if any(r["method"] == "sosproj_base" for r in rs)]
    if base:
        print("\npaired sosproj / sosproj_base (per-seed ratios; geometric mean, min, max)")
        pb: dict = {}
        for (name, _peer, eps, _seed, _), rs in base:
            new = [r for r in rs if r["method"] == "sosproj"]
            old = [r for r in rs if r["method"] == "sosproj_base"]
            pb.setdefault((name, eps), []).append(
                (statistics.median(r["cpu_s"] for r in new) / statistics.median(r["cpu_s"] for r in old),
                 statistics.median(r["l1"] for r in new) / statistics.median(r["l1"] for r in old)))
        print("dataset eps n cpu_gmean cpu_min cpu_max l1_gmean l1_min l1_max")
        for (name, eps), v in sorted(pb.items()):
            c = [x[0] for x in v]
            e = [x[1] for x in v]
            print(f"{name} {eps:g} {len(v)} {statistics.geometric_mean(c):.3f} {min(c):.3f} {max(c):.3f} "
                  f"{statistics.geometric_mean(e):.6f} {min(e):.6f} {max(e):.6f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", nargs="+", default=[],
                    help="PEER:DATASET:EPS:SEED[,SEED...] (PEER aim or mst), run in the order given")
    ap.add_argument("--sosproj-src", default=str(ROOT), help="directory holding the sosproj package to time")
    ap.add_argument("--baseline-src", default=None,
                    help="a second sosproj (e.g. a snapshot of main) timed in the same cells, interleaved with the "
                         "first (rows with method 'sosproj_base'; paired ratios printed)")
    ap.add_argument("--sosproj-repeats", type=int, default=2,
                    help="sosproj releases per cell, interleaved with the peer's (sosproj, peer, sosproj, ...)")
    ap.add_argument("--peer-timeout", type=float, default=3600.0)
    ap.add_argument("--peer-impl", choices=sorted(PEER_IMPLS), default="smartnoise",
                    help="which package runs AIM / MST (rows of dpmm carry peer_impl = 'dpmm')")
    ap.add_argument("--label", default="", help="written into every row (e.g. the sosproj commit)")
    ap.add_argument("--keep-synth", default=None, help="directory for the peers' synthetic data (npz)")
    ap.add_argument("--out", default=None, help="JSON lines file the rows are appended to (required)")
    ap.add_argument("--summary", nargs="+", default=None, help="print the ratio table of these row files and exit")
    ap.add_argument("--sosproj-child", nargs=5, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.summary:
        summary(args.summary)
        return
    if args.sosproj_child is not None:
        src, name, eps, seed, out = args.sosproj_child
        sosproj_child(src, name, float(eps), int(seed), out)
        return
    if args.out is None:
        ap.error("--out is required")
    env = {**os.environ, **ONE_THREAD}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    keep = Path(args.keep_synth) if args.keep_synth else None
    for cell in args.cells:
        meth, name, eps_s, seeds_s = cell.split(":")
        if meth not in ("aim", "mst", "none"):
            raise SystemExit(f"unknown peer {meth!r} in {cell!r}; use aim, mst or none")
        eps = float(eps_s)
        for seed in (int(s) for s in seeds_s.split(",")):
            rows = []
            for rep in range(max(args.sosproj_repeats, 1)):
                rows.append({**run_sosproj(args.sosproj_src, name, eps, seed, env), "repeat": rep,
                             "sosproj_src": str(Path(args.sosproj_src).resolve())})
                if rep == 0 and meth != "none":
                    rows.append(run_peer(meth, name, eps, seed, args.peer_timeout, env, keep, args.peer_impl))
                if args.baseline_src is not None:
                    rows.append({**run_sosproj(args.baseline_src, name, eps, seed, env), "repeat": rep,
                                 "method": "sosproj_base", "sosproj_src": str(Path(args.baseline_src).resolve())})
            common = {"dataset": name, "epsilon": eps, "delta": DELTA, "seed": seed, "peer": meth,
                      "label": args.label, "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            with out.open("a") as fh:
                for r in rows:
                    fh.write(json.dumps({**common, **r}) + "\n")
            sos = [r for r in rows if r["method"] == "sosproj"]
            med = {k: statistics.median(r[k] for r in sos) for k in ("wall_s", "cpu_s", "proc_cpu_s", "l1")}
            loads = [r["load_before"] for r in rows] + [r["load_after"] for r in rows]
            base = [r for r in rows if r["method"] == "sosproj_base"]
            if base:
                mb = {k: statistics.median(r[k] for r in base) for k in ("cpu_s", "l1")}
                print(f"{name:8s} eps={eps:<4g} seed={seed} sosproj cpu {med['cpu_s']:.3f}s l1 {med['l1']:.6f} | "
                      f"base cpu {mb['cpu_s']:.3f}s l1 {mb['l1']:.6f} | ratio cpu {_ratio(med['cpu_s'], mb['cpu_s'])} "
                      f"l1 {_ratio(med['l1'], mb['l1'])} | load {min(loads):.1f}-{max(loads):.1f}", flush=True)
            if meth == "none":
                continue
            peer = next(r for r in rows if r["method"] == meth)
            print(f"{name:8s} eps={eps:<4g} seed={seed} {meth}: sosproj wall {med['wall_s']:.2f}s cpu "
                  f"{med['cpu_s']:.2f}s l1 {med['l1']:.4f} | {meth} wall {peer['wall_s']} cpu {peer['cpu_s']} "
                  f"l1 {peer['l1']} | ratio wall {_ratio(med['wall_s'], peer['wall_s'])} cpu "
                  f"{_ratio(med['cpu_s'], peer['cpu_s'])} proc_cpu {_ratio(med['proc_cpu_s'], peer['proc_cpu_s'])} "
                  f"l1 {_ratio(med['l1'], peer['l1'])} | load {min(loads):.1f}-{max(loads):.1f}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()

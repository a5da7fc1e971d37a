"""Benchmark: sosproj's marginal pipeline against the peers that matter.

Workload: all 3-way marginals.  Privacy: (epsilon, delta = 1e-9), replace-one adjacency (m public), except
AIM / MST which account in zCDP under add/remove (docs/bench_peers.md states the conversion).  Methods:

* ``rp``        ResidualPlanner: RP-optimal measurement, exact replace-one sensitivity, BLUE reconstruction;
* ``rp_trunc``  the same noisy measurement, BLUE, negative cells clipped and every table rescaled to m;
* ``grem_lnn``  the same noisy measurement, GReM-LNN (local non-negativity) reconstruction;
* ``tables``    equal-noise tables + Boolean-cube projection (``sosproj.mechanisms.marginal_tables.release_tables``,
  binary data only);
* ``aim`` / ``mst``  smartnoise-synth's AIM / MST (run by ``benchmarks/peers/run_private_pgm.py`` in the
  separate venv ``/work/venv-peers``; scored on the synthetic data's 3-way marginals); cells already run by
  ``benchmarks/peers/pgm_queue.sh`` are read from ``results_peers/pgm/``, missing ones are run only with
  ``--run-pgm``;
* ``sosproj``, ``sosproj_sel``, ``sosproj_pairs``, ``sosproj_rp``, ``sosproj_lnn``  ``sp.release_marginals(ds, 3,
  epsilon=, delta=1e-9, rng=seed)`` with the defaults, ``selection="one-way"``, ``selection="pairs"``,
  ``allocation="rp"``, ``reconstruction="lnn"``;
* ``sosproj_ar``, ``sosproj_pairs_ar``  the default and ``selection="pairs"`` under AIM's and MST's adjacency,
  add/remove (``adjacency="add-remove", public_m=m``; :data:`ADD_REMOVE`); ``sosproj_pairs_tree_ar`` the latter
  with the tree prior of the extrapolation (``project_options={"extrapolation": "tree"}``, session 38).

Metrics per release: ``l1`` = average over the workload of ||released - true||_1 / m, ``rmse`` = root mean
squared error per cell (counts), ``seconds`` (wall clock of the release, including the measurement and
layout construction), ``peak_mib`` (tracemalloc peak of Python/numpy allocations in process, traced runs
only; max RSS of the subprocess for AIM / MST), ``peak_rss_mib`` (the process's resident-set high-water
mark over the release, reset before it: an upper bound that includes the data already resident).
One JSON row per (dataset, method, epsilon, seed) is appended to ``--out``; rows already there are
skipped (resumable).  ``benchmarks/peers/report.py`` makes the table and the plot.

Example (the commands behind docs/bench_peers.md are listed in benchmarks/results_peers/COMMANDS.md)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/marginals_peers.py --datasets nltcs titanic \\
        --epsilons 0.1 1 --seeds 0 1 --methods rp rp_trunc grem_lnn --out /tmp/rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from peers.data import DATA_DIR, load  # noqa: E402
from peers.grem_lnn import grem_lnn  # noqa: E402
from peers.residual import (  # noqa: E402
    MarginalWorkload,
    ResidualMeasurement,
    blue,
    residual_planner,
    truncate_rescale,
)

DATASETS = ("nltcs", "titanic", "adult", "planted32", "planted64")
EPSILONS = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
METHODS = ("rp", "rp_trunc", "grem_lnn", "tables", "aim", "mst", "sosproj", "sosproj_sel", "sosproj_pairs",
           "sosproj_rp", "sosproj_lnn", "sosproj_ar", "sosproj_pairs_ar", "sosproj_pairs_tree_ar")
SOSPROJ = {"sosproj": {}, "sosproj_sel": {"selection": "one-way"}, "sosproj_pairs": {"selection": "pairs"},
           "sosproj_rp": {"allocation": "rp"},
           "sosproj_lnn": {"reconstruction": "lnn"},
           "sosproj_ar": {"adjacency": "add-remove"},
           "sosproj_pairs_ar": {"adjacency": "add-remove", "selection": "pairs"},
           "sosproj_pairs_tree_ar": {"adjacency": "add-remove", "selection": "pairs",
                                     "project_options": {"extrapolation": "tree"}}}
#: Methods released under add/remove adjacency: AIM's and MST's own (their zCDP accounting), so that the two sides of
#: a comparison meet the same guarantee. The number of records is then private; the release's public size is the
#: dataset's declared size (``public_m=m``, as the peers' runner passes ``rows=m`` to their synthesizers), and the
#: released total is noisy (scored against the true tables like every method).
ADD_REMOVE = {"sosproj_ar", "sosproj_pairs_ar", "sosproj_pairs_tree_ar"}
DELTA = 1e-9
K = 3
PGM_DIR = ROOT / "benchmarks" / "results_peers" / "pgm"
PEERS_PYTHON = "/work/venv-peers/bin/python"


def errors(wl: MarginalWorkload, est: np.ndarray, true: np.ndarray, m: int) -> tuple[float, float]:
    """(average L1 per marginal / m, RMSE per cell in counts)."""
    diff = est - true
    l1 = float(np.mean(np.add.reduceat(np.abs(diff), wl.wl_offsets[:-1]))) / m
    return l1, float(np.sqrt(np.mean(diff**2)))


TRACE = {"on": False}


def _finite(x: float) -> float | None:
    """``x`` for a JSON row, ``None`` for NaN."""
    return None if x != x else float(x)


def _reset_rss_peak() -> bool:
    """Reset the process's resident-set high-water mark (Linux >= 4.0: ``5 > /proc/self/clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _rss_peak_mib() -> float:
    """``VmHWM`` of this process (MiB), NaN where ``/proc`` does not have it."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Timer:
    """Wall clock of a block, and its tracemalloc peak (MiB) when ``TRACE["on"]`` (NaN otherwise).

    tracemalloc slows Python-level loops severalfold, so the harness times untraced runs and measures
    the peak in a separate traced run of the same release (first seed only).  Every untraced block also
    records ``peak_rss_mib``: the process's resident-set high-water mark over the block (reset at its
    start; it includes the data and workload already resident, so it bounds the block's own peak from
    above), free of cost, so rows of seeds / epsilons without a traced run still carry a memory figure.
    """

    def __enter__(self) -> Timer:
        self.rss_ok = False
        if TRACE["on"]:
            tracemalloc.start()
            tracemalloc.reset_peak()
        else:
            self.rss_ok = _reset_rss_peak()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        self.peak_mib = float("nan")
        self.peak_rss_mib = _rss_peak_mib() if self.rss_ok else float("nan")
        if TRACE["on"]:
            self.peak_mib = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()


def _dataset(name: str, X: np.ndarray, names: list[str], sizes: list[int]):
    """sosproj's input for ``name`` and the map from the harness's attribute indices to sosproj's."""
    import sosproj as sp

    if name.startswith("planted"):
        from sosproj.data.domain import Dataset, Domain

        return Dataset(X, Domain.from_sizes(list(sizes))), list(range(len(sizes)))
    ds = sp.load_dataset(name)
    return ds, [list(ds.domain.names).index(a) for a in names]


def sosproj_rp_measurement(name: str, wl: MarginalWorkload, X: np.ndarray, names: list[str], sizes: list[int],
                           eps: float, seed: int) -> ResidualMeasurement:
    """The noisy measurement of ``sp.release_marginals(..., allocation="rp", rng=seed)``, in the peers' layout.

    ``reconstruction="blue"`` releases the measured residuals unchanged (ResidualPlanner's BLUE is the
    measurement itself in the residual basis), so ``rel.residuals`` and ``rel.info["noise_scales"]`` are
    exactly the noisy projected residuals ``P_A (mu_A + sigma_A z_A)`` and their scales that sosproj's
    ``allocation="rp"`` draws for this seed, whatever its reconstruction (same generator, same draw
    order: the default allocation draws the same standard normals ``z`` and only scales them
    differently).  The post-processing peers then post-process this very measurement (common random
    numbers); ``tests/test_bench_peers.py`` checks that it equals the peers' own RP measurement
    noise-free and in scales.
    """
    import sosproj as sp

    ds, attr_map = _dataset(name, X, names, sizes)
    rel = sp.release_marginals(ds, K, epsilon=eps, delta=DELTA, rng=seed, allocation="rp", reconstruction="blue")
    return measurement_from_release(rel, wl, attr_map)


def measurement_from_release(rel, wl: MarginalWorkload, attr_map: list[int]) -> ResidualMeasurement:
    """Residuals and scales of a sosproj release (harness attribute ``i`` = sosproj attribute ``attr_map[i]``)."""
    scales = rel.info["noise_scales"]
    blocks, sig = [], []
    for a in wl.residuals:
        b = [attr_map[i] for i in a]
        key = tuple(sorted(b))
        arr = np.asarray(rel.layout.residual(rel.residuals, key), float)
        blocks.append(arr.transpose([key.index(x) for x in b]).ravel())
        sig.append(scales[key])
    return ResidualMeasurement(wl, np.concatenate(blocks), np.array(sig), int(rel.m), float(rel.spec.sensitivity))


def run_rp_family(wl: MarginalWorkload, X: np.ndarray, true: np.ndarray, eps: float, seed: int, todo: set[str],
                  build_s: float, lnn_opts: dict, paired: tuple | None = None) -> list[dict]:
    """RP (BLUE), RP+truncate, GReM-LNN from one noisy measurement: sosproj's ``allocation="rp"`` draw for
    ``seed`` when ``paired = (name, names, sizes)`` (the default), else the peer code's own RP draw."""
    m = X.shape[0]
    rows = []
    with Timer() as tm:
        if paired is not None:
            meas = sosproj_rp_measurement(paired[0], wl, X, paired[1], paired[2], eps, seed)
        else:
            meas = residual_planner(wl, X, eps, DELTA, np.random.default_rng(seed))
    with Timer() as tb:
        est = blue(meas)
    base = build_s + tm.seconds
    rss = max(tm.peak_rss_mib, tb.peak_rss_mib)
    if "rp" in todo:
        rows.append(("rp", est, base + tb.seconds, max(tm.peak_mib, tb.peak_mib), rss, {}))
    if "rp_trunc" in todo:
        with Timer() as tt:
            tr = truncate_rescale(wl, est, m)
        rows.append(("rp_trunc", tr, base + tb.seconds + tt.seconds, max(tm.peak_mib, tb.peak_mib, tt.peak_mib),
                     max(rss, tt.peak_rss_mib), {}))
    if "grem_lnn" in todo:
        with Timer() as tg:
            g, info = grem_lnn(meas, return_info=True, **lnn_opts)
        rows.append(("grem_lnn", g, base + tg.seconds, max(tm.peak_mib, tg.peak_mib), max(tm.peak_rss_mib,
                     tg.peak_rss_mib), {k: info[k] for k in ("iterations", "primal_residual", "converged")}))
    out = []
    for meth, e, sec, peak, rss_peak, extra in rows:
        l1, rmse = errors(wl, e, true, m)
        out.append({"method": meth, "l1": l1, "rmse": rmse, "seconds": sec, "peak_mib": peak,
                    "peak_rss_mib": _finite(rss_peak),
                    "sensitivity_shape": meas.sensitivity_shape,
                    "measurement": "sosproj-rp" if paired is not None else "peer-rp", **extra})
    return out


def _tables_from_release(rel, wl: MarginalWorkload, attr_map: list) -> np.ndarray:
    return np.concatenate([np.asarray(rel.table([attr_map[i] for i in w]), float).ravel() for w in wl.sets])


def run_tables(wl, X, true, eps, seed) -> dict:
    from sosproj.mechanisms.marginal_tables import release_tables

    with Timer() as t:
        rel = release_tables(X.astype(np.uint8), K, epsilon=eps, delta=DELTA, rng=seed)
        est = _tables_from_release(rel, wl, list(range(X.shape[1])))
    l1, rmse = errors(wl, est, true, X.shape[0])
    return {"method": "tables", "l1": l1, "rmse": rmse, "seconds": t.seconds, "peak_mib": t.peak_mib,
            "peak_rss_mib": _finite(t.peak_rss_mib)}


def run_sosproj(name: str, meth: str, wl, X, names, sizes, true, eps, seed) -> dict:
    import sosproj as sp

    with Timer() as t:
        ds, attr_map = _dataset(name, X, names, sizes)
        public = {"public_m": ds.m} if meth in ADD_REMOVE else {}
        rel = sp.release_marginals(ds, K, epsilon=eps, delta=DELTA, rng=seed, **SOSPROJ[meth], **public)
        est = _tables_from_release(rel, wl, attr_map)
    l1, rmse = errors(wl, est, true, X.shape[0])
    info = rel.info
    extra = {k: info[k] for k in ("allocation", "reconstruction", "adjacency", "auto_mix", "auto_mix_rule",
                                  "public_snr", "reconstruction_tol") if k in info}
    ri = info.get("reconstruction_info") or {}
    extra.update({f"recon_{k}": ri[k] for k in ("converged", "iterations", "psd", "psd_fallback", "theta")
                  if k in ri})
    if "converged" in ri:
        extra["converged"] = bool(ri["converged"])
    return {"method": meth, "l1": l1, "rmse": rmse, "seconds": t.seconds, "peak_mib": t.peak_mib,
            "peak_rss_mib": _finite(t.peak_rss_mib), **extra}


def run_pgm(name: str, meth: str, wl, true, m, eps, seed, run_missing: bool) -> dict | None:
    stem = f"{meth}_{name}_{eps:g}_{seed}"  # no Path.with_suffix: '0.3' holds a dot
    cutoff, npz = PGM_DIR / f"{stem}.cutoff", PGM_DIR / f"{stem}.npz"
    if cutoff.exists():
        cut = json.loads(cutoff.read_text())
        return {"method": meth, "l1": None, "rmse": None, "seconds": cut["cutoff_s"], "peak_mib": None,
                "cutoff": True}
    if not npz.exists():
        if not run_missing:
            return None
        PGM_DIR.mkdir(parents=True, exist_ok=True)
        cmd = [PEERS_PYTHON, str(ROOT / "benchmarks/peers/run_private_pgm.py"), meth, str(DATA_DIR / f"{name}.csv"),
               str(DATA_DIR / f"{name}-domain.json"), f"{eps:g}", f"{DELTA:g}", str(seed), str(npz)]
        try:
            subprocess.run(cmd, check=True, timeout=3600)
        except subprocess.TimeoutExpired:
            cutoff.write_text(json.dumps({"cutoff_s": 3600}))
            return run_pgm(name, meth, wl, true, m, eps, seed, False)
    z = np.load(npz)
    est = wl.workload_answers(z["synth"])
    l1, rmse = errors(wl, est, true, m)
    return {"method": meth, "l1": l1, "rmse": rmse, "seconds": float(z["time"]),
            "peak_mib": float(z["maxrss_kb"]) / 1024, "memory": "maxrss", "noise_seeded": False}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    ap.add_argument("--epsilons", nargs="+", type=float, default=list(EPSILONS))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results_peers/grid.jsonl"))
    ap.add_argument("--run-pgm", action="store_true", help="run missing AIM / MST cells (slow)")
    ap.add_argument("--unpaired", action="store_true",
                    help="peers draw their own RP measurement (default: they post-process sosproj's alloc=rp draw)")
    ap.add_argument("--lnn-tol", type=float, default=0.1, help="GReM-LNN ADMM tolerance (counts)")
    ap.add_argument("--lnn-max-iter", type=int, default=2000)
    ap.add_argument("--trace-seed", type=int, default=None,
                    help="seed whose releases are rerun under tracemalloc for the memory peak (default: the first)")
    ap.add_argument("--trace-eps", type=float, nargs="*", default=None,
                    help="epsilons at which the memory peak is measured (default: all)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["dataset"], r["method"], float(r["epsilon"]), int(r["seed"])))
    lnn_opts = {"tol": args.lnn_tol, "max_iter": args.lnn_max_iter}
    for name in args.datasets:
        X, names, sizes = load(name)
        m = X.shape[0]
        t0 = time.perf_counter()
        wl = MarginalWorkload.all_k_way(sizes, K)
        build_s = time.perf_counter() - t0
        true = wl.workload_answers(X)
        binary = all(s == 2 for s in sizes)
        paired = None if args.unpaired else (name, names, sizes)
        for eps in args.epsilons:
            for seed in args.seeds:
                todo = {meth for meth in args.methods if (name, meth, eps, seed) not in done}
                if not binary:
                    todo.discard("tables")
                if name.startswith("planted"):
                    todo -= {"aim", "mst"}
                rows: list[dict] = []
                fam = todo & {"rp", "rp_trunc", "grem_lnn"}
                peaks: dict[str, float] = {}
                trace_seed = args.seeds[0] if args.trace_seed is None else args.trace_seed
                if seed == trace_seed and (args.trace_eps is None or eps in args.trace_eps):
                    # traced rerun for the memory peak only
                    TRACE["on"] = True
                    try:
                        if fam:
                            peaks.update({r["method"]: r["peak_mib"]
                                          for r in run_rp_family(wl, X, true, eps, seed, fam, build_s, lnn_opts,
                                                                        paired)})
                        if "tables" in todo:
                            peaks["tables"] = run_tables(wl, X, true, eps, seed)["peak_mib"]
                        for meth in SOSPROJ:
                            if meth in todo:
                                peaks[meth] = run_sosproj(name, meth, wl, X, names, sizes, true, eps, seed)["peak_mib"]
                    finally:
                        TRACE["on"] = False
                if fam:
                    rows += run_rp_family(wl, X, true, eps, seed, fam, build_s, lnn_opts, paired)
                if "tables" in todo:
                    rows.append(run_tables(wl, X, true, eps, seed))
                for meth in ("aim", "mst"):
                    if meth in todo:
                        r = run_pgm(name, meth, wl, true, m, eps, seed, args.run_pgm)
                        if r is not None:
                            rows.append(r)
                for meth in SOSPROJ:
                    if meth in todo:
                        rows.append(run_sosproj(name, meth, wl, X, names, sizes, true, eps, seed))
                with out.open("a") as fh:
                    for r in rows:
                        if r["method"] in peaks:
                            r["peak_mib"] = peaks[r["method"]]
                        elif r.get("peak_mib") is not None and r["peak_mib"] != r["peak_mib"]:
                            r["peak_mib"] = None
                        r.update({"dataset": name, "epsilon": eps, "delta": DELTA, "seed": seed, "m": m,
                                  "n_marginals": len(wl.sets)})
                        fh.write(json.dumps(r) + "\n")
                        print(f"{name:9s} eps={eps:<5g} seed={seed} {r['method']:12s} "
                              f"l1={r['l1'] if r['l1'] is None else round(r['l1'], 5)} "
                              f"t={r['seconds']:.2f}s", flush=True)
    print("done")


if __name__ == "__main__":
    main()

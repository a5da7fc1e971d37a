"""Held-out check of a skip-rule variant on the evaluation datasets (issue 14, cat29): paired L1 against the default.

For each (dataset, epsilon, seed) this releases all 3-way marginals twice in one process, interleaved: with the
default skip thresholds (``AUTO_SKIP_SNR`` as the library sets it) and with ``--skip`` (``_skip=``), the same
``rng=seed`` (the same standard normals on the sets both measure), and prints the L1 per marginal / m of both,
their ratio, the measured sets per order and the CPU seconds (one BLAS thread). The variant was chosen on synthetic
data (``catrule_drop.py``); this is the held-out check only. Error as ``benchmarks/marginals_peers.py`` scores it.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/catrule_heldout.py --datasets titanic --eps 1 3 \\
           --seeds 0 1 2 3 4 --base-skip 5 5 --skip 5 5 8 > benchmarks/results_catrule/cat29/heldout_titanic.txt
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from catrule_study import score  # noqa: E402
from peers.data import load  # noqa: E402

from sosproj.data.domain import Dataset, Domain  # noqa: E402
from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402


def _run(ds: Dataset, truth: dict, eps: float, seed: int, skip: tuple[float, ...] | None,
         cell: float | None = None, floor: float = 0.0, shrink: tuple[float, int] | None = None
         ) -> tuple[float, str, float]:
    mp.ONE_WAY_CELL_SNR, mp.ONE_WAY_FLOOR = cell, floor
    if shrink is not None:
        mp.ONE_WAY_SHRINK, mp.ONE_WAY_LOW_MIN_SIZE = shrink
    t0 = time.process_time()
    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=seed, _skip=skip)
    dt = time.process_time() - t0
    err, meas = score(rel, truth, ds.m)
    return err, meas, dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--skip", type=float, nargs="+", required=True, help="the variant's thresholds per order")
    ap.add_argument("--base-skip", type=float, nargs="+", default=None,
                    help="the baseline's thresholds per order (default: the library's AUTO_SKIP_SNR); the session-29 "
                         "records compare 5 5 (the rule before) with 5 5 8")
    ap.add_argument("--baseline-rows", default=None,
                    help="JSON lines of the default's recorded rows (marginals_peers.py; same seeds): their L1 is the "
                         "baseline, and only the first (epsilon, seed) re-runs the default, to check it reproduces")
    ap.add_argument("--cell-snr", type=float, default=None,
                    help="the variant's size-dependent 1-way bar min(tau_1, B sqrt(n_i)) "
                         "(marginals_pipeline.ONE_WAY_CELL_SNR; session 31); the baseline runs without it")
    ap.add_argument("--floor", type=float, default=0.0,
                    help="with --cell-snr: the bar min(tau_1, max(F, B sqrt(n_i))) (ONE_WAY_FLOOR)")
    ap.add_argument("--shrink", type=float, nargs=2, default=None, metavar=("C", "S"),
                    help="the variant's ONE_WAY_SHRINK and ONE_WAY_LOW_MIN_SIZE (session 31; default: the library's)")
    ap.add_argument("--base-shrink", type=float, nargs=2, default=None, metavar=("C", "S"),
                    help="the baseline's ONE_WAY_SHRINK and ONE_WAY_LOW_MIN_SIZE (0 0: main e2c03a6's rule)")
    args = ap.parse_args()
    vshr = None if args.shrink is None else (args.shrink[0], int(args.shrink[1]))
    bshr = None if args.base_shrink is None else (args.base_shrink[0], int(args.base_shrink[1]))
    lib = (mp.ONE_WAY_SHRINK, mp.ONE_WAY_LOW_MIN_SIZE)
    vshr, bshr = vshr or lib, bshr or lib
    recorded: dict[tuple[str, float, int], float] = {}
    if args.baseline_rows:
        for ln in open(args.baseline_rows):
            r = json.loads(ln)
            recorded[r["dataset"], float(r["epsilon"]), int(r["seed"])] = float(r["l1"])
    skip = tuple(args.skip)
    base = None if args.base_skip is None else tuple(args.base_skip)
    print(f"dataset eps seed l1_default l1_variant ratio kept_default kept_variant cpu_default cpu_variant "
          f"(default {mp.AUTO_SKIP_SNR if base is None else base}, variant {skip}"
          f"{'' if args.cell_snr is None else f' with ONE_WAY_CELL_SNR = {args.cell_snr:g}, floor {args.floor:g}'}"
          f"; shrink (C, S): default {bshr}, variant {vshr})", flush=True)
    for name in args.datasets:
        X, _, sizes = load(name)
        ds = Dataset(np.asarray(X, dtype=np.int64), Domain.from_sizes(sizes))
        truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
        first = True
        for eps in args.eps:
            logs = []
            for seed in args.seeds:
                key = (name, float(eps), int(seed))
                if key in recorded and not first:
                    e0, k0, c0 = recorded[key], "rec", float("nan")
                else:
                    e0, k0, c0 = _run(ds, truth, eps, seed, base, shrink=bshr)
                    if key in recorded:
                        print(f"# reproduce check {key}: recorded {recorded[key]:.8f}, re-run {e0:.8f}", flush=True)
                first = False
                e1, k1, c1 = _run(ds, truth, eps, seed, skip, args.cell_snr, args.floor, vshr)
                logs.append(math.log(e1 / e0))
                print(f"{name} {eps:g} {seed} {e0:.6f} {e1:.6f} {e1 / e0:.4f} {k0} {k1} {c0:.2f} {c1:.2f}", flush=True)
            g, sd = float(np.mean(logs)), float(np.std(logs, ddof=1)) if len(logs) > 1 else 0.0
            half = 2.776 * sd / math.sqrt(len(logs)) if len(logs) == 5 else 1.96 * sd / math.sqrt(len(logs))
            print(f"# {name} {eps:g}: paired ratio {math.exp(g):.4f} [{math.exp(g - half):.4f}, "
                  f"{math.exp(g + half):.4f}] (geometric mean, 95% t-interval, n = {len(logs)})", flush=True)


if __name__ == "__main__":
    main()

"""The L1 bootstrap choice between a 1-way set's James-Stein table and its raw table (issue 14, session 34, lead).

Variants: ``main`` (``ONE_WAY_L1_DRAWS = 0``: every shrunk 1-way set keeps its factor, the library before this
session bit for bit) and ``L`` (``ONE_WAY_L1_DRAWS = 40``: :func:`sosproj.mechanisms.marginals_pipeline.
select_one_way_estimate`). ``L`` changes a release only where ``main`` shrinks a 1-way set (public: the set's SNR is
below the band and ``q >= 3``); elsewhere it is main's release and is printed with the tag ``same``.

Shapes and seeds as oneway34's harness (``oneway_study.load``: every seen shape, and the fresh set ``I:``; the
generator ``rng = 1000 + seed``); rows in oneway34's format, so its ``summarize.py`` reads them.

Usage: python benchmarks/results_catrule/lead34/l1sel_study.py --shapes tit9-m1k I:i-tit-m1000 --eps 0.1 0.3 \\
           --seeds 0 1 2 > RAW
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "oneway34"))
import oneway_study  # noqa: E402  (sets up the study paths: tau33, stein31, stein32, the repository)
from catrule_study import score  # noqa: E402

from sosproj.mechanisms import marginals_pipeline as mp  # noqa: E402

DRAWS = {"main": 0, "L": 40}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", required=True)
    ap.add_argument("--eps", type=float, nargs="+", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    saved = mp.ONE_WAY_L1_DRAWS
    print("shape eps variant seed err measured_1/2/3 converged cpu_s", flush=True)
    try:
        for name in args.shapes:
            ds = oneway_study.load(name)
            truth = {w: ds.marginal(w) for w in itertools.combinations(range(ds.n), 3)}
            for eps, seed in itertools.product(args.eps, args.seeds):
                rows = {}
                for v in ("main", "L"):
                    mp.ONE_WAY_L1_DRAWS = DRAWS[v]
                    t0 = time.process_time()
                    rel = mp.release(ds, 3, epsilon=eps, delta=1e-9, rng=1000 + seed, options={"on_fail": "return"})
                    dt = time.process_time() - t0
                    err, meas = score(rel, truth, ds.m)
                    conv = rel.info["reconstruction_info"].get("converged")
                    rows[v] = (err, meas, conv, dt)
                    if v == "main" and not rel.info["shrunk_one_way_sets"]:
                        break                      # nothing to choose: L is main's release
                if "L" not in rows:
                    if seed == args.seeds[0]:
                        print(f"# {name} {eps:g}: no 1-way set shrunk, L is main's release", flush=True)
                    continue
                for v, (err, meas, conv, dt) in rows.items():
                    print(f"{name} {eps:g} {v} {seed} {err:.6f} {meas} {conv} {dt:.2f}", flush=True)
    finally:
        mp.ONE_WAY_L1_DRAWS = saved


if __name__ == "__main__":
    main()

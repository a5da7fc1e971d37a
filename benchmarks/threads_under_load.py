"""BLAS threads under load: sosproj's thread policy against the libraries' default threads.

Two workloads of the README and of the research API:

* ``marginals``: the README's command-line release, ``sosproj release marginals`` of
  2,000 x 10 binary records with ``k = 3`` (default method), as the Python call
  ``release_marginals(D, 3, epsilon=1, delta=1e-6, rng=3)``;
* ``support``: ``PseudoMomentSet(MomentRelaxation(unit_ball(12), 4), k=3).support(W)`` (a
  fresh set each time: building and solving, as a user's first call does);
* ``eigh2000``: one ``numpy.linalg.eigh`` of a 2000 x 2000 matrix under the policy (the kind of
  large factorization where more threads could pay).

Each runs with the **policy** (``SOSPROJ_NUM_THREADS`` unset: one BLAS thread inside
sosproj's calls) and with the **default** threads (``SOSPROJ_NUM_THREADS=all``: the
BLAS libraries' own setting, one thread per core), both on the machine as it is
("idle") and with a **load**: a second process running BLAS matrix products on every
core. Rounds interleave the four conditions, so drifts of the machine's own load hit
them alike; the script reports medians and the ratio loaded / idle per workload and
mode (target: <= 1.5 with the policy), and the load average seen.

Run (about 3-6 minutes on 2 cores)::

    python benchmarks/threads_under_load.py --rounds 5 --json benchmarks/results_threads/threads_under_load.json

Do not set ``OPENBLAS_NUM_THREADS``: the point is the default thread count.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np

LOADER = """
import numpy as np, time
a = np.random.default_rng(0).standard_normal((1500, 1500))
while True:
    a = a @ a
    a /= np.linalg.norm(a)
"""


def workloads() -> dict[str, Any]:
    import sosproj as sp
    from sosproj.poly import unit_ball

    rng = np.random.default_rng(0)
    D = (rng.random((2000, 10)) < 0.3).astype(np.uint8)
    W = rng.standard_normal((12, 12, 12))

    def marginals() -> None:
        sp.release_marginals(D, 3, epsilon=1.0, delta=1e-6, rng=3)

    def support() -> None:
        sp.PseudoMomentSet(sp.MomentRelaxation(unit_ball(12), 4), k=3).support(W)

    from sosproj.threads import blas_threads

    B = rng.standard_normal((2000, 2000))
    B = B + B.T

    def eigh2000() -> None:  # one large dense factorization (is it worth every core?)
        with blas_threads():
            np.linalg.eigh(B)

    return {"marginals": marginals, "support": support, "eigh2000": eigh2000}


def blas_threads_now() -> list[int]:
    from threadpoolctl import threadpool_info

    return sorted({lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"})


def timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", default=None, help="write the raw timings here")
    args = ap.parse_args()
    if any(os.environ.get(v) for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")):
        sys.exit("unset OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS: this measures the default")
    from sosproj import threads

    work = workloads()
    for fn in work.values():  # warm-up: imports, caches of the polynomial systems
        fn()
    modes = {"policy": None, "default": "all"}
    times: dict[str, list[float]] = {}
    loadavg: dict[str, list[float]] = {"idle": [], "loaded": []}
    seen_threads: dict[str, list[int]] = {}
    for r in range(args.rounds):
        for load in ("idle", "loaded"):
            proc = None
            if load == "loaded":
                proc = subprocess.Popen([sys.executable, "-c", LOADER], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
                time.sleep(1.0)
            try:
                loadavg[load].append(os.getloadavg()[0])
                for mode, setting in modes.items():
                    threads.set_num_threads(setting)
                    with threads.blas_threads():
                        seen_threads[mode] = blas_threads_now()
                    for name, fn in work.items():
                        times.setdefault(f"{name}|{mode}|{load}", []).append(timed(fn))
            finally:
                threads.set_num_threads(None)
                if proc is not None:
                    proc.kill()
                    proc.wait()
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
        report(work, modes, times, loadavg, seen_threads, r + 1, args.json)


def report(work: dict[str, Any], modes: dict[str, Any], times: dict[str, list[float]],
           loadavg: dict[str, list[float]], seen_threads: dict[str, list[int]], rounds: int,
           json_path: str | None) -> None:
    """Print the medians and ratios so far; write the raw timings (after every round)."""
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\n## after round {rounds}")
    print(f"# {rounds} rounds; cpus {os.cpu_count()}; BLAS threads inside sosproj calls: "
          + ", ".join(f"{m} {t}" for m, t in seen_threads.items()))
    print(f"# 1-min load average at the start of each block: idle median {statistics.median(loadavg['idle']):.1f}, "
          f"loaded median {statistics.median(loadavg['loaded']):.1f} (other users of the machine included)")
    print(f"{'workload':<10} {'mode':<8} {'idle (s)':>9} {'loaded (s)':>11} {'loaded/idle':>12}")
    for name in work:
        for mode in modes:
            i, lo = med[f"{name}|{mode}|idle"], med[f"{name}|{mode}|loaded"]
            print(f"{name:<10} {mode:<8} {i:9.3f} {lo:11.3f} {lo / i:12.2f}")
    for name in work:
        for load in ("idle", "loaded"):
            d, p = med[f"{name}|default|{load}"], med[f"{name}|policy|{load}"]
            print(f"# {name}, {load}: default threads / policy = {d / p:.2f}")
    if json_path:
        os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
        with open(json_path, "w", encoding="utf-8") as fh:
            json.dump({"rounds": rounds, "cpus": os.cpu_count(), "python": platform.python_version(),
                       "blas_threads_inside": seen_threads, "loadavg": loadavg, "times": times,
                       "medians": med}, fh, indent=2)
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""Benchmark: one dense symmetric eigendecomposition on a PyTorch device, by order and precision.

Times :func:`sosproj.sdp.gpu.device_eigh` (host matrix in, all eigenvalues and ``--columns`` of the
eigenvectors back to the host: what ``lowrank`` / ``rankone_newton`` pay per decomposition with
``device=``) on random symmetric matrices; medians of ``--repeat`` after one warm-up.

Usage::

    python benchmarks/device_eigh_timing.py --device cuda --orders 1326 2145 5151
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sosproj.sdp.gpu import device_eigh


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--orders", type=int, nargs="+", default=[1326, 2145, 5151])
    ap.add_argument("--columns", type=int, default=50, help="eigenvectors copied back")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    for d in args.orders:
        A = rng.standard_normal((d, d))
        A = A + A.T
        for dtype in (np.float32, np.float64):
            M = A.astype(dtype)
            device_eigh(M, args.device, lambda w: slice(0, args.columns))
            ts = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                device_eigh(M, args.device, lambda w: slice(0, args.columns))
                ts.append(time.perf_counter() - t0)
            print(f"device_eigh {args.device} order {d} {np.dtype(dtype).name}: median {np.median(ts) * 1e3:.1f} ms "
                  f"(min {min(ts) * 1e3:.1f}) over {args.repeat}", flush=True)


if __name__ == "__main__":
    main()

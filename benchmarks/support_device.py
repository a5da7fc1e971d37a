"""Benchmark: certified support functions with the decompositions on a PyTorch device (issue 15, item 5).

For each ``n`` and Gaussian tensor ``W`` (drawn as ``benchmarks/support_scale.py`` draws them: seed
``[--seed, n]``, the same tensors as its runs), it solves the degree-4 unit-ball support problem
(``k = 3``) with ``solver="rankone_newton"`` (or ``--solver``) once per entry of ``--devices``: ``host``
is ``device=None`` (LAPACK on the host, today's default), anything else is passed as ``device=`` (``cuda``,
``cpu``: PyTorch on the host). Every answer is certified by the same host code
(:class:`~sosproj.sdp.support_bounds.SupportCertifier`, the rounded point) whatever device produced it.

Reported per run: wall time (``time.perf_counter``), the process's CPU time (``time.process_time``; with a
GPU it includes the host thread waiting on the device), steps, status, certified gap, support value. With
``host`` among the devices, the ratios host / device of wall and CPU time. The device is warmed up first
(one small decomposition: CUDA context and cuSOLVER handle), outside the timings. BLAS threads: whatever
the environment says (the issue-15 numbers use one: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``).

Usage::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/support_device.py --ns 64 --devices cuda host
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/support_device.py --ns 8 --devices cpu host  # smoke
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding, support_route
from sosproj.sdp.solve import ConicSolver
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

INFO_KEYS = ("dr_iterations", "dr_capped_iterations", "newton_steps", "newton_cg", "newton_rounds",
             "partial_decompositions", "full_decompositions", "cert_relative_gap")


def certify(cert: SupportCertifier, rounding: TensorRounding, q: np.ndarray, res) -> dict:
    """The certified relative gap and the support bounds of an answer by the host's certifier (as
    ``support_scale.py`` certifies): ``support`` is the value of the best exactly feasible point."""
    if res.x is None or res.y_dual is None:
        return {"relative_gap": float("inf"), "support": float("nan"), "upper": float("nan")}
    b = cert.bounds(q, res.x, res.y_dual, point_value=rounding(q, res.x), repair=True)
    return {"relative_gap": float(b["relative_gap"]), "support": -float(b["upper"]), "upper": -float(b["lower"])}


def warm_up(device: str) -> None:
    from sosproj.sdp.gpu import device_eigh

    A = np.random.default_rng(0).standard_normal((64, 64))
    device_eigh(A + A.T, device)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[64])
    ap.add_argument("--tensors", type=int, default=1)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--solver", default="rankone_newton")
    ap.add_argument("--devices", nargs="+", default=["cuda", "host"])
    ap.add_argument("--max-time", type=float, default=900.0, help="solver time limit per solve (s)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--no-recertify", action="store_true",
                    help="report the solver's own (host) certificate instead of recertifying with repair "
                         "(a full host eigendecomposition: minutes at order 5,151)")
    ap.add_argument("--json", default=None, help="write the raw per-solve results here (after each solve)")
    args = ap.parse_args()
    print(f"# support_device: solver {args.solver}, tol {args.tol:g} (certified gap target {10 * args.tol:g}), "
          f"devices {args.devices}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"{platform.processor() or platform.machine()}, load {os.getloadavg()[0]:.1f}", flush=True)
    for dev in args.devices:
        if dev != "host":
            t0 = time.perf_counter()
            warm_up(dev)
            print(f"# warm-up {dev}: {time.perf_counter() - t0:.2f} s", flush=True)
    raw: list[dict] = []
    for n in args.ns:
        t0 = time.perf_counter()
        R = MomentRelaxation(unit_ball(n), 4)
        build = time.perf_counter() - t0
        rng = np.random.default_rng([args.seed, n])
        for i in range(args.tensors):
            W = rng.standard_normal((n, n, n))
            prob = compile_support(R, 3, W)
            q = prob.q
            cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
            rounding = TensorRounding(R, 3)
            _, settings = support_route(R, args.solver, args.tol, 3)
            rec: dict = {"n": n, "tensor": i, "order": R.psd_blocks[0].order, "build": build}
            for dev in args.devices:
                opts = {} if dev == "host" else {"device": dev}
                load0 = os.getloadavg()[0]
                t0, c0 = time.perf_counter(), time.process_time()
                ws = ConicSolver(prob, args.solver, tol=args.tol, time_limit=args.max_time, **settings, **opts)
                res = ws.solve(on_fail="return")
                t, cpu = time.perf_counter() - t0, time.process_time() - c0
                if args.no_recertify:
                    c = {"relative_gap": float(res.info.get("cert_relative_gap", float("inf"))),
                         "support": -float(res.info.get("cert_upper", float("nan"))),
                         "upper": -float(res.info.get("cert_lower", float("nan")))}
                else:
                    c = certify(cert, rounding, q, res)
                rec[dev] = {"time": t, "cpu": cpu, "iterations": res.iterations, "status": res.status,
                            "load": [load0, os.getloadavg()[0]], **{k: res.info.get(k) for k in INFO_KEYS}, **c}
                r = rec[dev]
                print(f"n={n} order={rec['order']} tensor {i} {dev}: {t:.2f} s wall, {cpu:.2f} s CPU, "
                      f"{r['dr_iterations']} DR steps ({r['dr_capped_iterations']} capped) + {r['newton_steps']} "
                      f"Newton ({r['newton_rounds']} rounds, {r['newton_cg']} CG), {res.status}, "
                      f"gap {c['relative_gap']:.2e}, support {c['support']:.6f}, load {load0:.1f}", flush=True)
                if args.json:
                    with open(args.json, "w") as fh:
                        json.dump(raw + [rec], fh, indent=1, default=float)
            raw.append(rec)
            if "host" in args.devices:
                for dev in args.devices:
                    if dev != "host":
                        h, d = rec["host"], rec[dev]
                        print(f"RATIO n={n} tensor {i} host/{dev}: wall {h['time'] / d['time']:.2f}x, "
                              f"CPU {h['cpu'] / d['cpu']:.2f}x; supports {h['support']:.8f} / {d['support']:.8f}",
                              flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(raw, fh, indent=1, default=float)


if __name__ == "__main__":
    main()

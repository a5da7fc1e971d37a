"""Benchmark: certified support functions of the degree-4 unit-ball relaxation (k = 3) at scale.

For each ``n`` and Gaussian tensor ``W`` (cold start, one BLAS thread unless the environment
says otherwise), it measures

* ``rankone_newton``: ``solver="rankone_newton"`` with ``tol`` (power-method candidate, rough
  Douglas-Rachford dual, semismooth Newton polish on the face; stops at the certified gap ``10 * tol``);
* ``rankone_newton_old``: the same with the defaults of main at 243c883 (:data:`OLD_NEWTON`);
* ``rankone_newton_base``: ``solver="rankone_newton"`` of another source tree (``--base-src DIR``, for
  instance ``git archive e4cbbe6 | tar -x -C DIR``), run in a child process with ``PYTHONPATH=DIR`` on the
  same tensor (written to a temporary file); its wall / CPU time are measured inside the child (imports
  and setup excluded, as for the others) and its answer is certified here by the same code;
* ``rankone``: ``solver="rankone"`` with ``tol`` (power-method candidate + dual certificate,
  stops at the certified relative gap ``10 * tol``; falls back to ``lowrank`` without one);
* ``lowrank``: ``solver="lowrank"`` with ``tol`` (it stops at the certified relative gap
  ``10 * tol``);
* ``admm`` (today's default): cold solves with ``tol`` = 1e-6, 1e-7, ... until the answer,
  certified with the same machinery (:class:`~sosproj.sdp.support_bounds.SupportCertifier`
  and the same rounded point), reaches the same certified gap; its time is the time of that
  solve alone (the smaller tolerances that failed are not charged);
* ``scs`` (for ``n <= --scs-max``): one solve at ``tol``, certified the same way;

and prints per-``n`` medians (wall time and the process's CPU time, which is what a quiet
machine would show with one BLAS thread), the certified gaps and the ratios of every solver's
time to the ``--base`` solver's (default ``rankone``) measured in the same run. For ``rankone_newton`` and
``rankone_newton_base`` it also prints the peak resident set of the solve above the resident size at its start
(the peak is reset first, ``echo 5 > /proc/self/clear_refs``; Linux only, NaN elsewhere) against the solver's
memory estimate.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/support_scale.py --ns 10 20 30 --tensors 3 --tol 1e-7
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_scale.py --ns 64 --tensors 3 --tol 1e-6 --solvers rankone
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace

import numpy as np

from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding, support_route
from sosproj.sdp.solve import ConicSolver
from sosproj.sdp.support_bounds import SupportCertifier, ball_interior_moments, moment_trace_bound

#: the defaults of ``rankone_newton`` before issue 15's support3 session (main at 243c883): rough phase
#: from zero, block-Krylov negative eigenpairs, rough gap 1e-2 (label ``rankone_newton_old``)
OLD_NEWTON = {"start": "zero", "eig": "krylov", "dr_gap": 1e-2}


def certified(cert: SupportCertifier, rounding: TensorRounding, q: np.ndarray, res) -> dict:
    if res.x is None or res.y_dual is None:
        return {"relative_gap": float("inf"), "upper": float("nan")}
    point = rounding(q, res.x)
    b = cert.bounds(q, res.x, res.y_dual, point_value=point, repair=True)
    return {"relative_gap": float(b["relative_gap"]), "upper": -float(b["lower"]), "lower": -float(b["upper"])}


def _status_bytes(key: str) -> int | None:
    """``VmRSS`` / ``VmHWM`` of this process from /proc (``None`` where there is none)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def peak_start() -> int | None:
    """Reset the peak resident set (``echo 5 > /proc/self/clear_refs``) and return the resident size now."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return None
    return _status_bytes("VmRSS")


def peak_since(base: int | None) -> float:
    """Peak resident bytes above ``base`` since :func:`peak_start` (NaN where /proc is missing)."""
    hwm = _status_bytes("VmHWM")
    return float("nan") if base is None or hwm is None else float(hwm - base)


#: the child of ``rankone_newton_base``: only APIs that exist in both source trees
_CHILD = """
import sys, time, numpy as np
def _rss(key):
    try:
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import support_route
from sosproj.sdp.solve import ConicSolver
path, n, tol, max_time = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
R = MomentRelaxation(unit_ball(n), 4)
prob = compile_support(R, 3, np.load(path + ".W.npy"))
_, settings = support_route(R, "rankone_newton", tol, 3)
try:
    open("/proc/self/clear_refs", "w").write("5")
    rss0 = _rss("VmRSS")
except OSError:
    rss0 = None
t0, c0 = time.perf_counter(), time.process_time()
res = ConicSolver(prob, "rankone_newton", tol=tol, time_limit=max_time, **settings).solve(on_fail="return")
t, cpu = time.perf_counter() - t0, time.process_time() - c0
hwm = _rss("VmHWM")
peak = float("nan") if rss0 is None or hwm is None else float(hwm - rss0)
info = {k: res.info.get(k) for k in ("dr_iterations", "newton_steps", "newton_cg", "newton_rounds",
                                     "partial_decompositions", "full_decompositions")}
np.savez(path + ".out.npz", x=res.x, y=res.y_dual, t=t, cpu=cpu, iterations=res.iterations,
         status=res.status, info=repr(info), peak=peak)
"""


def run_base(src: str, W: np.ndarray, tol: float, max_time: float) -> tuple[dict, np.ndarray, np.ndarray]:
    """``rankone_newton`` of the source tree ``src`` in a child process (see the module docs)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "case")
        np.save(path + ".W.npy", W)
        env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
        subprocess.run([sys.executable, "-c", _CHILD, path, str(W.shape[0]), repr(tol), repr(max_time)],
                       env=env, check=True, cwd=tmp)
        out = np.load(path + ".out.npz", allow_pickle=False)
        rec = {"time": float(out["t"]), "cpu": float(out["cpu"]), "iterations": int(out["iterations"]),
               "status": str(out["status"]), "info": str(out["info"]),
               "peak_bytes": float(out["peak"]) if "peak" in out else float("nan")}
        return rec, out["x"], out["y"]


def run_one(R, W, tol: float, solvers: list[str], max_time: float, base_src: str | None = None) -> dict:
    prob = compile_support(R, 3, W)
    q = prob.q
    cert = SupportCertifier(prob, moment_trace_bound(R), ball_interior_moments(R))
    rounding = TensorRounding(R, 3)
    target = 10.0 * tol
    out: dict = {}
    for label in ("rankone_newton", "rankone_newton_old"):
        if label not in solvers:
            continue
        _, settings = support_route(R, "rankone_newton", tol, 3)
        rss0 = peak_start()
        t0, c0 = time.perf_counter(), time.process_time()
        ws = ConicSolver(prob, "rankone_newton", tol=tol, time_limit=max_time, **settings,
                         **(OLD_NEWTON if label == "rankone_newton_old" else {}))
        res = ws.solve(on_fail="return")
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        peak = peak_since(rss0)
        c = certified(cert, rounding, q, res)
        out[label] = {"time": t, "cpu": cpu, "iterations": res.iterations, "status": res.status,
                      **{k: res.info.get(k) for k in ("dr_iterations", "dr_capped_iterations", "newton_steps",
                                                      "newton_cg",
                                                      "newton_rounds", "partial_decompositions",
                                                      "full_decompositions", "flattening_bound",
                                                      "newton_update_checks", "missed_decompositions",
                                                      "dr_status", "dr_capped_status")},
                      "peak_bytes": peak, "memory_estimate": ws.memory_estimate, **c}
    if "rankone_newton_base" in solvers and base_src:
        rec, x, y = run_base(base_src, W, tol, max_time)
        out["rankone_newton_base"] = {**rec, **certified(cert, rounding, q, SimpleNamespace(x=x, y_dual=y))}
    if "rankone" in solvers:
        _, settings = support_route(R, "rankone", tol, 3)
        t0, c0 = time.perf_counter(), time.process_time()
        ws = ConicSolver(prob, "rankone", tol=tol, time_limit=max_time, **settings)
        res = ws.solve(on_fail="return")
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        c = certified(cert, rounding, q, res)
        out["rankone"] = {"time": t, "cpu": cpu, "iterations": res.iterations, "status": res.status,
                          "fallback": res.info.get("fallback"), "dr_iterations": res.info.get("rankone_iterations"),
                          **c}
    if "lowrank" in solvers:
        _, settings = support_route(R, "lowrank", tol, 3)
        t0, c0 = time.perf_counter(), time.process_time()
        ws = ConicSolver(prob, "lowrank", tol=tol, time_limit=max_time, **settings)
        res = ws.solve(on_fail="return")
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        c = certified(cert, rounding, q, res)
        out["lowrank"] = {"time": t, "cpu": cpu, "iterations": res.iterations, "status": res.status, **c}
    if "admm" in solvers:
        best = None
        for admm_tol in (10.0 * tol, tol, tol / 10.0, tol / 100.0):
            t0, c0 = time.perf_counter(), time.process_time()
            ws = ConicSolver(prob, "admm", tol=admm_tol, time_limit=max_time)
            res = ws.solve(on_fail="return")
            t, cpu = time.perf_counter() - t0, time.process_time() - c0
            c = certified(cert, rounding, q, res)
            best = {"time": t, "cpu": cpu, "iterations": res.iterations, "status": res.status,
                    "admm_tol": admm_tol, **c}
            if c["relative_gap"] <= target or t > max_time:
                break
        out["admm"] = best
    if "scs" in solvers:
        t0, c0 = time.perf_counter(), time.process_time()
        ws = ConicSolver(prob, "scs", tol=tol, time_limit=max_time)
        res = ws.solve(on_fail="return")
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        c = certified(cert, rounding, q, res)
        out["scs"] = {"time": t, "cpu": cpu, "iterations": res.iterations, "status": res.status, **c}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[10, 20, 30])
    ap.add_argument("--tensors", type=int, default=3)
    ap.add_argument("--tol", type=float, default=1e-7)
    ap.add_argument("--solvers", nargs="+", default=["rankone", "lowrank", "admm", "scs"])
    ap.add_argument("--base", default="rankone", help="the solver the ratios are taken against")
    ap.add_argument("--scs-max", type=int, default=20)
    ap.add_argument("--max-time", type=float, default=1800.0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", default=None, help="write the raw per-tensor results here")
    ap.add_argument("--base-src", default=None, help="source tree of the rankone_newton_base solver")
    ap.add_argument("--first-tensor", type=int, default=0,
                    help="skip the tensors before this index (they are drawn all the same: the seeds do not move)")
    args = ap.parse_args()
    print(f"# support_scale: tol {args.tol:g} (certified gap target {10 * args.tol:g}), "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"{platform.processor() or platform.machine()}, load {os.getloadavg()[0]:.1f}", flush=True)
    raw = []
    for n in args.ns:
        t0 = time.perf_counter()
        R = MomentRelaxation(unit_ball(n), 4)
        build = time.perf_counter() - t0
        rng = np.random.default_rng([args.seed, n])
        per = []
        for i in range(args.tensors):
            W = rng.standard_normal((n, n, n))
            if i < args.first_tensor:
                continue
            solvers = [s for s in args.solvers if s != "scs" or n <= args.scs_max]
            r = run_one(R, W, args.tol, solvers, args.max_time, args.base_src)
            per.append(r)
            raw.append({"n": n, "tensor": i, **r})
            line = " ".join(f"{s}={v['time']:.2f}s(cpu {v['cpu']:.2f}s)/{v['iterations']}it/"
                            f"gap{v['relative_gap']:.1e}/{v['status']}" for s, v in r.items())
            print(f"n={n} tensor {i}: {line}", flush=True)
            order = R.psd_blocks[0].order
            for s_, v in r.items():
                if np.isfinite(v.get("peak_bytes", np.nan)):
                    est = v.get("memory_estimate")
                    print(f"  memory {s_}: peak resident {v['peak_bytes'] / 2**30:.3f} GiB above the start "
                          f"= {v['peak_bytes'] / (8 * order * order):.1f} dense N x N float64"
                          + (f"; estimate {est / 2**30:.3f} GiB = {est / (8 * order * order):.1f} "
                             f"(estimate / peak {est / v['peak_bytes']:.2f})" if est else ""), flush=True)
        med = {s: float(np.median([p[s]["time"] for p in per])) for s in per[0]}
        med_cpu = {s: float(np.median([p[s]["cpu"] for p in per])) for s in per[0]}
        gaps = {s: float(np.max([p[s]["relative_gap"] for p in per])) for s in per[0]}
        ratios = {s: med[s] / med[args.base] for s in med if s != args.base and args.base in med}
        ratios_cpu = {s: med_cpu[s] / med_cpu[args.base] for s in med if s != args.base and args.base in med}
        print(f"SUMMARY n={n} order={R.psd_blocks[0].order} build={build:.1f}s median times "
              + ", ".join(f"{s} {t:.2f}s cpu {med_cpu[s]:.2f}s (max gap {gaps[s]:.1e})" for s, t in med.items())
              + (f" | ratios vs {args.base}: " + ", ".join(f"{s} {r:.1f}x (cpu {ratios_cpu[s]:.1f}x)"
                                                           for s, r in ratios.items()) if ratios else "")
              + f" | load {os.getloadavg()[0]:.1f}",
              flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(raw, fh, indent=1, default=float)


if __name__ == "__main__":
    main()

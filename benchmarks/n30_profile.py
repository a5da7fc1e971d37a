"""Profile of one ``solver="rankone_newton"`` support solve (issue 15, n = 30): wall / CPU per phase.

Wraps the phases' functions (no change to the library) and times each call with ``perf_counter`` and
``process_time``; nested phases are reported inside their parents (indented). Then a cProfile of the
same solve (top functions by internal time). One BLAS thread unless the environment says otherwise.

Usage::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/n30_profile.py --n 30 --tensor 0
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
from collections import defaultdict

import numpy as np

import sosproj.sdp.backends.rankone_newton as rn
import sosproj.sdp.backends.ssnal as ssnal
import sosproj.sdp.partial_newton as pn
import sosproj.sdp.rankone_dual as rd
import sosproj.sdp.support_bounds as sb
from sosproj.poly import MomentRelaxation, unit_ball
from sosproj.sdp import compile_support
from sosproj.sdp.lowrank_support import TensorRounding, support_route
from sosproj.sdp.solve import ConicSolver

TOT: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
STACK: list[str] = []


def wrap(owner, name: str, label: str) -> None:
    fn = getattr(owner, name)

    def inner(*a, **k):
        key = "/".join(STACK + [label])
        STACK.append(label)
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return fn(*a, **k)
        finally:
            STACK.pop()
            rec = TOT[key]
            rec[0] += time.perf_counter() - t0
            rec[1] += time.process_time() - c0
            rec[2] += 1

    setattr(owner, name, staticmethod(inner) if isinstance(owner.__dict__.get(name), staticmethod) else inner)


PHASES = [
    (ConicSolver, "__init__", "ConicSolver setup (backend, certifier, interior lambda_min)"),
    (ConicSolver, "solve", "ConicSolver.solve"),
    (rn.RankOneNewtonBackend, "solve", "rankone_newton.solve"),
    (TensorRounding, "best_point", "candidate: TensorRounding.best_point"),
    (TensorRounding, "dirac", "candidate: dirac moments"),
    (rn.RankOneNewtonBackend, "_rough_dual", "rough dual (Douglas-Rachford)"),
    (rn.RankOneNewtonBackend, "_start", "flattening start"),
    (rd.DualFeasibility, "affine", "affine projection"),
    (rd.NegativeEigenpairs, "_filter", "negative eigenpairs: Chebyshev filter"),
    (rd.NegativeEigenpairs, "_krylov", "negative eigenpairs: block Krylov"),
    (rd.NegativeEigenpairs, "_exact", "negative eigenpairs: exact (syevr subset)"),
    (sb.SupportCertifier, "verifies", "certificate: Cholesky check (verifies)"),
    (sb.SupportCertifier, "lower", "certificate: lambda_min bound (lower)"),
    (sb.SupportCertifier, "bounds", "certificate: final bounds"),
    (ssnal.SsnalBackend, "solve", "Newton phase (ssnal.solve)"),
    (rn._FaceSsnal, "__init__", "Newton workspace setup (_FaceSsnal)"),
    (ssnal.SsnalBackend, "_newton_dir", "Newton direction (PCG)"),
    (ssnal.SsnalBackend, "_phi", "AL function (projection)"),
    (pn.PartialPsdBlock, "decompose", "face block: decompose"),
    (pn.PartialPsdBlock, "_complete", "face block: Cholesky completeness check"),
    (pn.PartialPsdBlock, "_resolvents", "face block: resolvent Cholesky"),
    (pn.PartialPsdBlock, "jacobian", "face block: Jacobian apply"),
    (ssnal.SsnalBackend, "normal_factor", "normal-equation factor"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--tensor", type=int, default=0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--tol", type=float, default=1e-7)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"# n30_profile: n {args.n}, tensor {args.tensor} (support_scale.py's seed {args.seed}), tol {args.tol:g}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, load {os.getloadavg()[0]:.2f}")
    t0, c0 = time.perf_counter(), time.process_time()
    R = MomentRelaxation(unit_ball(args.n), 4)
    print(f"build MomentRelaxation: {time.perf_counter() - t0:.3f} s wall / {time.process_time() - c0:.3f} s CPU")
    rng = np.random.default_rng([args.seed, args.n])
    for _ in range(args.tensor + 1):
        W = rng.standard_normal((args.n, args.n, args.n))
    t0, c0 = time.perf_counter(), time.process_time()
    prob = compile_support(R, 3, W)
    _, settings = support_route(R, "rankone_newton", args.tol, 3)
    print(f"compile_support + support_route: {time.perf_counter() - t0:.3f} s wall / "
          f"{time.process_time() - c0:.3f} s CPU  (outside the benchmark's timing)")

    def go():
        ws = ConicSolver(prob, "rankone_newton", tol=args.tol, **settings)
        return ws.solve(on_fail="return")

    go()                                                    # warm-up (imports, caches)
    for owner, name, label in PHASES:
        wrap(owner, name, label)
    walls = []
    for _ in range(args.reps):
        t0, c0 = time.perf_counter(), time.process_time()
        res = go()
        walls.append((time.perf_counter() - t0, time.process_time() - c0))
    info = {k: res.info.get(k) for k in ("dr_iterations", "newton_steps", "newton_cg", "newton_update_checks",
                                         "partial_decompositions", "full_decompositions", "cert_relative_gap")}
    print(f"status {res.status}, {info}")
    print("whole solve (ConicSolver init + solve), wall / CPU per rep: "
          + ", ".join(f"{w:.3f}/{c:.3f}" for w, c in walls))
    print(f"\nper phase, summed over {args.reps} reps then divided by {args.reps} (wall s, CPU s, calls per solve):")
    for key, (w, c, k) in TOT.items():
        depth = key.count("/")
        print(f"{'  ' * depth}{key.split('/')[-1]:<{70 - 2 * depth}} {w / args.reps:7.4f} {c / args.reps:7.4f} "
              f"{k / args.reps:6.1f}")
    pr = cProfile.Profile()
    pr.enable()
    go()
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
    print("\ncProfile (one solve, internal time):")
    print("\n".join(s.getvalue().splitlines()[:45]))
    print(f"# load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
